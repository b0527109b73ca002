/**
 * .NET stacks (C#, F#, VB): `at Shop.Billing.Invoice.Total(Int32 n) in
 * /src/Invoice.cs:line 27` (the ` in file:line N` part only with debug
 * symbols), `--- End of stack trace from previous location ---`. The
 * `Unhandled exception. System.X: msg` and ` ---> System.X: msg` lines
 * are error lines (error-line.ts). Functions keep their namespace, as the
 * chunker's C# symbols do; what the compiler generated is reduced to the
 * method it came from (`<SendAsync>d__4.MoveNext` is `SendAsync`, a
 * lambda `<>c.<Main>b__0_0` is `Main`, `.ctor` the class).
 */
import { type FrameRules, frameFrom } from '../drafts.js';
import { oneLineFrame, type TraceRecognizer } from '../recognizer.js';

const RE_FRAME = /^\s*at ([^\s()]+)\(([^()]*)\)(?: in (.+?):line (\d+))?\s*$/d;
/** Parameters as .NET prints them: `Int32 n, IEnumerable\`1 lines`, or none. */
const RE_PARAMETERS = /^(?:[\w.`[\]<>,&*+]+ [\w@]+(?:, [\w.`[\]<>,&*+]+ [\w@]+)*)?$/;
const RE_NOISE =
  /^\s*--- End of (?:inner exception )?stack trace(?: from previous location)?[\w ]* ---\s*$/;

/** One dotted segment of a compiler-generated name: `<SendAsync>d__4`, `<Main>b__0_0`, `<Main>$`. */
const RE_GENERATED = /^<([\w]*)>[\w$|]*$/;

const rules: FrameRules = {
  format: 'dotnet',
  isExternal: (_path, fn) =>
    /^(?:System|Microsoft|Xunit|NUnit|MSTest|Windows|Mono)\./.test(fn ?? ''),
  normalizeFunction: (raw) => {
    const f = raw
      .replace(/`\d+/g, '')
      .replace(/\[[^\]]*\]/g, '')
      .replace(/\.\.c?ctor$/, '')
      .replaceAll('+', '.');
    const segs = f.split('.');
    const out: string[] = [];
    segs.forEach((seg, k) => {
      // An async method's state machine `<SendAsync>d__4.MoveNext` is `SendAsync`.
      if (seg === 'MoveNext' && k > 0 && RE_GENERATED.test(segs[k - 1]!)) return;
      const gen = RE_GENERATED.exec(seg);
      // `<>c` and `<>c__DisplayClass0_0` hold lambdas: the name is in the next segment.
      const name = gen ? gen[1]! : seg;
      if (name !== '' && out[out.length - 1] !== name) out.push(name);
    });
    return out.join('.') || null;
  },
};

export const dotnet: TraceRecognizer = {
  format: 'dotnet',
  hint: /at |--- End of/,
  recognize({ lines, i }) {
    const ln = lines[i]!;
    const m = RE_FRAME.exec(ln.text);
    if (m) {
      const params = m[2]!;
      // Without a file, only .NET's typed parameters tell it from a JVM frame.
      const dotnetOnly =
        RE_PARAMETERS.test(params) && !/^(?:Native Method|Unknown Source)/.test(params);
      if (m[3] === undefined && !dotnetOnly) return null;
      return oneLineFrame(frameFrom(rules, ln, m, { path: 3, line: 4, fn: 1 }));
    }
    if (RE_NOISE.test(ln.text)) return { kind: 'noise', format: 'dotnet', lines: 1 };
    return null;
  },
};
