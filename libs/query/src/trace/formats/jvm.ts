/**
 * JVM stacks (Java, Kotlin, Scala, Groovy): `at com.x.Foo.bar(Foo.java:42)`,
 * `Caused by: ...` and `Exception in thread "main" ...` (error lines),
 * `... 5 more`. Functions reduce to `Class.method`, which is what the
 * chunker calls a method (Kotlin and Scala symbols carry no package):
 * inner and anonymous classes to the class that names them, lambdas to
 * their method, Kotlin's file classes (`OrderKt` in `Order.kt`) to the
 * top-level function and its `$default` and coroutine wrappers to the
 * function they wrap.
 */
import { type FrameRules, frameDraft, group, splitLocation } from '../drafts.js';
import type { TraceRecognizer } from '../recognizer.js';

const RE_FRAME = /^\s*at ((?:[\w$.@-]+\/)?[\w$.<>]+)\(([^()]*)\)\s*$/d;
const RE_MORE = /^\s*\.\.\. \d+ (?:more|common frames omitted)\s*$/;
/** What a JVM prints where a file would be: `(Native Method)`, `(Unknown Source)`, `(Foo.java:42)`. */
const RE_JVM_LOCATION = /^(?:Native Method|Unknown Source(?::\d+)?|[^\s()]+)$/;

const rules: FrameRules = {
  format: 'java',
  isExternal: (_path, fn) =>
    /^(?:java\.|javax\.|jdk\.|sun\.|com\.sun\.|kotlin\.|kotlinx\.|scala\.|org\.junit\.|junit\.|org\.apache\.maven\.|org\.gradle\.|[\w.]+\/java\.)/.test(
      fn ?? '',
    ),
  normalizeFunction: (raw) => {
    let f = raw;
    const slash = f.lastIndexOf('/');
    if (slash >= 0) f = f.slice(slash + 1);
    const parts = f.split('.');
    let method = parts.pop() ?? '';
    const outer = parts.pop() ?? '';
    // `Outer$Inner$1`: the class is the last named part; a Kotlin lambda's
    // class is named for its function (`Order$total$1.invoke` is in `total`).
    const inner = outer.split('$').filter((s) => s !== '' && !/^\d+$/.test(s));
    let cls = inner[0] ?? outer;
    for (const s of inner.slice(1)) {
      if (/^[a-z]/.test(s) && /^(?:invoke|invokeSuspend|run|call|apply)$/.test(method)) {
        method = s;
        break;
      }
      cls = s;
    }
    const lambda = /^lambda\$([\w]+)\$\d+$/.exec(method);
    if (lambda) method = lambda[1]!;
    method = method.replace(/\$(?:default|suspendImpl)$/, '');
    if (method === '<init>' || method === '<clinit>') return cls || null;
    // Kotlin compiles top-level functions of `Order.kt` into a class `OrderKt`.
    if (/^\w+Kt$/.test(cls)) return method;
    return cls ? `${cls}.${method}` : method;
  },
};

export const jvm: TraceRecognizer = {
  format: 'java',
  hint: /at |\.\.\. \d/,
  recognize({ lines, i }) {
    const ln = lines[i]!;
    const m = RE_FRAME.exec(ln.text);
    if (m && RE_JVM_LOCATION.test(m[2]!)) {
      const base = ln.start;
      const fn = group(m, 1, base)!;
      const loc = splitLocation(group(m, 2, base)!);
      const hasFile = /\.\w+$/.test(loc.path[0]);
      const frame = frameDraft(
        rules,
        ln.start,
        ln.end,
        hasFile ? loc.path : null,
        loc.line,
        undefined,
        fn,
      );
      // `com.x.Foo.bar(Foo.java:42)` lives in com/x/Foo.java: the package gives the directory.
      if (hasFile && frame.path !== null && !frame.path.includes('/')) {
        const segs = fn[0].slice(fn[0].lastIndexOf('/') + 1).split('.');
        const pkg = segs.slice(0, -2).filter((s) => /^[a-z_][\w]*$/.test(s));
        if (pkg.length === segs.length - 2 && pkg.length > 0) {
          frame.pathValue = `${pkg.join('/')}/${frame.path}`;
        }
      }
      return { kind: 'frame', frame, lines: 1 };
    }
    if (RE_MORE.test(ln.text)) return { kind: 'noise', format: 'java', lines: 1 };
    return null;
  },
};
