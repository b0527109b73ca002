/**
 * Stack-trace and error-line detection. A pasted bug report is mostly
 * noise for a search engine (addresses, goroutine headers, runtime and
 * dependency frames); its strong signals are the frames' paths and
 * functions in the user's own code, the error types and the error
 * messages. This module finds blocks of trace lines and reduces each to a
 * TraceNode carrying those signals as terms.
 *
 * Recognised (one line at a time, with at most one line of look-ahead):
 * - Python: `Traceback (most recent call last):`, `File "x.py", line 3, in f`
 *   (the quoted source and caret lines under a frame are dropped), chained
 *   exception separators, `ValueError: msg`, pytest's `E   AssertionError`;
 * - JavaScript: `at f (file.js:1:2)`, `at file.js:1:2`, `at async f (...)`;
 * - Java/Kotlin: `at com.x.Foo.bar(Foo.java:42)`, `Caused by: ...`,
 *   `Exception in thread "main" ...`, `... 5 more`;
 * - Go: `panic: msg`, `fatal error: msg`, `goroutine 1 [running]:`, a
 *   function line followed by a tab-indented `/x/y.go:12 +0x1d` line,
 *   `created by ...`, `[signal ...]`, `exit status 2`;
 * - Rust: `thread 'main' panicked at src/main.rs:4:5:` (message on the next
 *   line) or the older `panicked at 'msg', src/main.rs:4:5`, backtrace
 *   lines `  3: crate::f` / `at ./src/x.rs:1:2`;
 * - any line `Name: message` where Name ends in Error, Exception, Warning,
 *   Fault, Failure, Panic, Exit or Interrupt, or is `Error`/`Exception`.
 *
 * A block needs at least one frame or one error line with a message: a
 * bare `ValueError` on its own is an identifier query, not a bug report.
 * Lines longer than MAX_TRACE_LINE are never trace lines, which bounds the
 * regex work per line and keeps the scan linear.
 */
import { classifyToken } from './shape.js';
import { tokenize } from './tokenize.js';
import type {
  QueryNode,
  StackFrame,
  TermNode,
  TraceError,
  TraceFormat,
  TraceNode,
  TraceRole,
} from './types.js';

const MAX_TRACE_LINE = 2000;

const RE_PY_FRAME = /^\s*File "([^"\n]+)", line (\d+)(?:, in (\S.*))?$/d;
const RE_PY_NOISE =
  /^\s*(?:Traceback \(most recent call last\):|During handling of the above exception, another exception occurred:|The above exception was the direct cause of the following exception:)\s*$/;
const RE_CARETS = /^\s*[~^]+\s*$/;
const RE_JAVA_FRAME = /^\s*at ((?:[\w$.@-]+\/)?[\w$.<>]+)\(([^()]*)\)\s*$/d;
const RE_JS_FRAME = /^\s*at (?:async )?(?:new )?([^\s()][^()]*?) \((.+)\)\s*$/d;
const RE_AT_LOCATION = /^\s*at (\S+?):(\d+)(?::(\d+))?\s*$/d;
const RE_JAVA_MORE = /^\s*\.\.\. \d+ (?:more|common frames omitted)\s*$/;
const RE_GO_GOROUTINE = /^goroutine \d+ \[[^\]]*\]:\s*$/;
const RE_GO_LOCATION = /^\t(\S+\.(?:go|s)):(\d+)(?: \+0x[0-9a-fA-F]+)?\s*$/d;
const RE_GO_CREATED = /^created by (\S+)(?: in goroutine \d+)?\s*$/d;
const RE_GO_FUNC = /^([^\s(][^\s]*?)\((?:[^()]*)\)\s*$/d;
const RE_GO_NOISE = /^(?:\[signal [^\]]*\]|exit status \d+|\s*\[recovered\])\s*$/;
const RE_GO_PANIC = /^(panic|fatal error): (.+)$/d;
const RE_RUST_PANIC = /^thread '[^']*' panicked at (.+)$/d;
const RE_RUST_NEW_LOCATION = /^(\S+?):(\d+):(\d+):$/d;
const RE_RUST_OLD_LOCATION = /^'(.*)', (\S+?):(\d+):(\d+)$/d;
const RE_RUST_FRAME_FN = /^\s*\d+: (\S+)\s*$/d;
const RE_RUST_NOISE = /^(?:note: run with `RUST_BACKTRACE=.*|stack backtrace:)\s*$/;
const RE_ERROR_LINE =
  /^\s*(?:Uncaught |Caused by: |Exception in thread "[^"]*" |E {1,8})?([A-Za-z_$][\w$.]*)(?:: ?(.*))?$/d;
const RE_ERROR_SUFFIX = /[a-z0-9_](?:Error|Exception|Warning|Fault|Failure|Panic|Exit|Interrupt)$/;
const RE_TRAILING_LOCATION = /:(\d+)(?::(\d+))?$/;

interface FrameDraft extends StackFrame {
  format: TraceFormat;
  pathStart: number;
  pathEnd: number;
  fnStart: number;
  fnEnd: number;
  /** The function reduced to what a repository defines, or null. */
  fnValue: string | null;
  /** Path to search, which may differ from the printed one (Java). */
  pathValue: string | null;
}

interface ErrorDraft extends TraceError {
  typeStart: number;
  typeEnd: number;
  messageStart: number;
  messageEnd: number;
}

type LineResult =
  | { kind: 'frame'; frame: FrameDraft; lines: number }
  | {
      kind: 'error';
      error: ErrorDraft;
      format: TraceFormat | null;
      lines: number;
      strong: boolean;
      /** The location printed on the error line itself (Rust panics). */
      frame?: FrameDraft;
    }
  | { kind: 'noise'; format: TraceFormat | null; lines: number; frame?: FrameDraft }
  | { kind: 'other' };

interface Line {
  start: number;
  end: number;
  text: string;
}

function splitLines(input: string): Line[] {
  const lines: Line[] = [];
  let s = 0;
  while (s <= input.length) {
    let e = input.indexOf('\n', s);
    if (e < 0) e = input.length;
    const textEnd = e > s && input.charCodeAt(e - 1) === 13 ? e - 1 : e;
    lines.push({ start: s, end: textEnd, text: input.slice(s, textEnd) });
    s = e + 1;
  }
  return lines;
}

function indentOf(text: string): number {
  let k = 0;
  while (k < text.length && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9)) k++;
  return k;
}

// ---------------------------------------------------------------------------
// Which frames are not the user's code

function isExternal(format: TraceFormat, path: string | null, fn: string | null): boolean {
  const p = path ?? '';
  const f = fn ?? '';
  switch (format) {
    case 'python':
      return (
        p.includes('site-packages') ||
        p.includes('dist-packages') ||
        /[\\/]lib[\\/]python\d/.test(p) ||
        p.startsWith('<')
      );
    case 'javascript':
      return (
        p.startsWith('node:') ||
        p.startsWith('internal/') ||
        p.includes('node_modules/') ||
        p === '<anonymous>' ||
        p === 'native'
      );
    case 'java':
      return /^(?:java\.|javax\.|jdk\.|sun\.|com\.sun\.|kotlin\.|kotlinx\.|scala\.|org\.junit\.|junit\.|org\.apache\.maven\.|org\.gradle\.|[\w.]+\/java\.)/.test(
        f,
      );
    case 'go':
      return (
        p.includes('/pkg/mod/') ||
        /(?:^|\/)go[\w.-]*(?:\/libexec)?\/src\/[a-z0-9_]+(?:\/|\.go$)/.test(p) ||
        /^(?:runtime|testing|reflect|sync)\./.test(f)
      );
    case 'rust':
      return (
        p.startsWith('/rustc/') ||
        p.includes('/.cargo/registry/') ||
        p.includes('/.rustup/') ||
        /^<?(?:std|core|alloc|test)::|^rust_begin_unwind|^__rust/.test(f)
      );
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------
// Function names reduced to what a repository defines

function normalizeFunction(format: TraceFormat, raw: string): string | null {
  let f = raw.trim();
  if (f === '' || (f.startsWith('<') && f.endsWith('>'))) return null; // <module>, <anonymous>
  switch (format) {
    case 'javascript': {
      f = f.replace(/ \[as [^\]]*\]$/, '');
      if (f.startsWith('Object.')) f = f.slice(7);
      if (f.includes('<anonymous>') || f === '') return null;
      return f;
    }
    case 'java': {
      const slash = f.lastIndexOf('/');
      if (slash >= 0) f = f.slice(slash + 1);
      const parts = f.split('.');
      let method = parts.pop() ?? '';
      let cls = parts.pop() ?? '';
      const inner = cls.split('$').filter((s) => s !== '' && !/^\d+$/.test(s));
      cls = inner[inner.length - 1] ?? cls;
      const lambda = /^lambda\$([\w]+)\$\d+$/.exec(method);
      if (lambda) method = lambda[1]!;
      if (method === '<init>' || method === '<clinit>') return cls || null;
      return cls ? `${cls}.${method}` : method;
    }
    case 'go': {
      const slash = f.lastIndexOf('/');
      if (slash >= 0) f = f.slice(slash + 1);
      f = f.replace(/(?:\.func\d+)+(?:\.\d+)*$/, '').replace(/\.\d+$/, '');
      const recv = /^[\w-]+\.\(\*?(\w+)\)\.(\w+)/.exec(f);
      if (recv) return `${recv[1]}.${recv[2]}`;
      return f.replace(/\[\.\.\.\]/g, '') || null;
    }
    case 'rust': {
      f = f.replace(/::h[0-9a-f]{16}$/, '').replace(/::\{\{closure\}\}/g, '');
      if (f.startsWith('<')) {
        // `<crate::Foo as core::fmt::Display>::fmt` -> `Foo::fmt`
        const m = /^<([\w:]+)(?: as [^>]*)?>::(\w+)$/.exec(f);
        if (!m) return null;
        const ty = m[1]!.split('::').pop()!;
        return `${ty}::${m[2]}`;
      }
      const segs = f.split('::').filter((s) => s !== '');
      return segs.slice(-2).join('::') || null;
    }
    default:
      return f;
  }
}

// ---------------------------------------------------------------------------
// Line classification

function frameDraft(
  format: TraceFormat,
  start: number,
  end: number,
  path: [string, number, number] | null,
  line: string | undefined,
  column: string | undefined,
  fn: [string, number, number] | null,
): FrameDraft {
  let pathText = path ? path[0] : null;
  if (pathText?.startsWith('file://')) pathText = pathText.slice(7);
  // `./src/x.rs` and `src/x.rs` are one file to search for.
  let pathValue = pathText;
  while (pathValue?.startsWith('./')) pathValue = pathValue.slice(2);
  const fnText = fn ? fn[0] : null;
  const frame: FrameDraft = {
    path: pathText,
    line: line !== undefined ? Number(line) : null,
    column: column !== undefined ? Number(column) : null,
    function: fnText,
    external: isExternal(format, pathText, fnText),
    start,
    end,
    format,
    pathStart: path ? path[1] : -1,
    pathEnd: path ? path[2] : -1,
    fnStart: fn ? fn[1] : -1,
    fnEnd: fn ? fn[2] : -1,
    fnValue: fnText !== null ? normalizeFunction(format, fnText) : null,
    pathValue,
  };
  return frame;
}

/** Group `g` of a `d`-flag match as [text, absStart, absEnd], offset by the line start. */
function group(m: RegExpExecArray, g: number, base: number): [string, number, number] | null {
  const text = m[g];
  const idx = m.indices?.[g];
  if (text === undefined || !idx) return null;
  return [text, base + idx[0], base + idx[1]];
}

function splitLocation(loc: [string, number, number]): {
  path: [string, number, number];
  line?: string;
  column?: string;
} {
  const m = RE_TRAILING_LOCATION.exec(loc[0]);
  if (!m || m.index === 0) return { path: loc };
  return {
    path: [loc[0].slice(0, m.index), loc[1], loc[1] + m.index],
    line: m[1],
    column: m[2],
  };
}

function errorDraft(
  typeG: [string, number, number],
  msgG: [string, number, number] | null,
  start: number,
  end: number,
): ErrorDraft {
  const message = msgG ? msgG[0].trim() : '';
  return {
    type: typeG[0],
    message,
    start,
    end,
    typeStart: typeG[1],
    typeEnd: typeG[2],
    messageStart: msgG ? msgG[1] : -1,
    messageEnd: msgG ? msgG[2] : -1,
  };
}

function isErrorName(name: string): boolean {
  const last = name.slice(name.lastIndexOf('.') + 1);
  if (last === 'Error' || last === 'Exception') return true;
  return RE_ERROR_SUFFIX.test(last);
}

/**
 * Classifies lines[i] (and maybe lines[i + 1]). `shallow` stops the one
 * recursive look-ahead (is the line after a Rust panic a trace line?) from
 * recursing again, so a run of panic lines is still classified in linear time.
 */
function classify(lines: Line[], i: number, shallow = false): LineResult {
  const ln = lines[i]!;
  const t = ln.text;
  if (t.length > MAX_TRACE_LINE) return { kind: 'other' };
  const base = ln.start;
  const next = lines[i + 1];
  let m = RE_PY_FRAME.exec(t);
  if (m) {
    const fn = group(m, 3, base);
    return {
      kind: 'frame',
      frame: frameDraft('python', ln.start, ln.end, group(m, 1, base), m[2], undefined, fn),
      lines: 1,
    };
  }
  if (RE_PY_NOISE.test(t)) return { kind: 'noise', format: 'python', lines: 1 };
  m = RE_JAVA_FRAME.exec(t);
  if (m) {
    const fn = group(m, 1, base)!;
    const inside = group(m, 2, base)!;
    const loc = splitLocation(inside);
    const hasFile = /\.\w+$/.test(loc.path[0]);
    const frame = frameDraft(
      'java',
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
  m = RE_JS_FRAME.exec(t);
  if (m) {
    const loc = splitLocation(group(m, 2, base)!);
    return {
      kind: 'frame',
      frame: frameDraft(
        'javascript',
        ln.start,
        ln.end,
        // `at async Promise.all (index 0)` names no file.
        loc.line !== undefined ? loc.path : null,
        loc.line,
        loc.column,
        group(m, 1, base),
      ),
      lines: 1,
    };
  }
  m = RE_AT_LOCATION.exec(t);
  if (m) {
    const path = group(m, 1, base)!;
    const format: TraceFormat = path[0].endsWith('.rs') ? 'rust' : 'javascript';
    return {
      kind: 'frame',
      frame: frameDraft(format, ln.start, ln.end, path, m[2], m[3], null),
      lines: 1,
    };
  }
  if (RE_JAVA_MORE.test(t)) return { kind: 'noise', format: 'java', lines: 1 };
  if (RE_GO_GOROUTINE.test(t)) return { kind: 'noise', format: 'go', lines: 1 };
  if (RE_GO_NOISE.test(t)) return { kind: 'noise', format: 'go', lines: 1 };
  m = RE_GO_LOCATION.exec(t);
  if (m) {
    return {
      kind: 'frame',
      frame: frameDraft('go', ln.start, ln.end, group(m, 1, base), m[2], undefined, null),
      lines: 1,
    };
  }
  // A Go function line is only known by the location line under it.
  if (next && next.text.length <= MAX_TRACE_LINE) {
    const loc = RE_GO_LOCATION.exec(next.text);
    if (loc) {
      const fm = RE_GO_CREATED.exec(t) ?? RE_GO_FUNC.exec(t);
      if (fm) {
        return {
          kind: 'frame',
          frame: frameDraft(
            'go',
            ln.start,
            next.end,
            group(loc, 1, next.start),
            loc[2],
            undefined,
            group(fm, 1, base),
          ),
          lines: 2,
        };
      }
    }
  }
  m = RE_GO_PANIC.exec(t);
  if (m) {
    const typeG = group(m, 1, base)!;
    const msgG = group(m, 2, base);
    return {
      kind: 'error',
      error: errorDraft(typeG, msgG, ln.start, ln.end),
      format: 'go',
      lines: 1,
      strong: true,
    };
  }
  m = RE_RUST_PANIC.exec(t);
  if (m) {
    const rest = group(m, 1, base)!;
    const rel = rest[1] - base;
    const newLoc = RE_RUST_NEW_LOCATION.exec(rest[0]);
    const typeG: [string, number, number] = ['panic', ln.start, ln.start];
    if (newLoc) {
      const frame = frameDraft(
        'rust',
        ln.start,
        ln.end,
        group(newLoc, 1, base + rel),
        newLoc[2],
        newLoc[3],
        null,
      );
      // The message is the next line, unless that line is part of the trace itself.
      if (!shallow && next && next.text.trim() !== '' && next.text.length <= MAX_TRACE_LINE) {
        const nextKind = classify(lines, i + 1, true).kind;
        if (nextKind === 'other') {
          const lead = indentOf(next.text);
          const msgG: [string, number, number] = [
            next.text.slice(lead),
            next.start + lead,
            next.end,
          ];
          return {
            kind: 'error',
            error: errorDraft(typeG, msgG, ln.start, next.end),
            format: 'rust',
            lines: 2,
            strong: true,
            frame,
          };
        }
      }
      return { kind: 'frame', frame, lines: 1 };
    }
    const old = RE_RUST_OLD_LOCATION.exec(rest[0]);
    if (old) {
      const frame = frameDraft(
        'rust',
        ln.start,
        ln.end,
        group(old, 2, base + rel),
        old[3],
        old[4],
        null,
      );
      return {
        kind: 'error',
        error: errorDraft(typeG, group(old, 1, base + rel), ln.start, ln.end),
        format: 'rust',
        lines: 1,
        strong: true,
        frame,
      };
    }
    return {
      kind: 'error',
      error: errorDraft(typeG, rest, ln.start, ln.end),
      format: 'rust',
      lines: 1,
      strong: true,
    };
  }
  m = RE_RUST_FRAME_FN.exec(t);
  if (m) {
    const fn = group(m, 1, base)!;
    if (fn[0].includes('::') || fn[0].startsWith('rust_') || fn[0].startsWith('__rust')) {
      // `  3: crate::f` with its `at src/x.rs:1:2` on the next line.
      const at = next && next.text.length <= MAX_TRACE_LINE ? RE_AT_LOCATION.exec(next.text) : null;
      if (at) {
        return {
          kind: 'frame',
          frame: frameDraft(
            'rust',
            ln.start,
            next!.end,
            group(at, 1, next!.start),
            at[2],
            at[3],
            fn,
          ),
          lines: 2,
        };
      }
      return {
        kind: 'frame',
        frame: frameDraft('rust', ln.start, ln.end, null, undefined, undefined, fn),
        lines: 1,
      };
    }
  }
  if (RE_RUST_NOISE.test(t)) return { kind: 'noise', format: 'rust', lines: 1 };
  if (RE_CARETS.test(t) && t.trim() !== '') return { kind: 'noise', format: null, lines: 1 };
  m = RE_ERROR_LINE.exec(t);
  if (m && isErrorName(m[1]!)) {
    const msgG = group(m, 2, base);
    return {
      kind: 'error',
      error: errorDraft(group(m, 1, base)!, msgG, ln.start, ln.end),
      format: null,
      lines: 1,
      strong: msgG !== null && msgG[0].trim() !== '',
    };
  }
  return { kind: 'other' };
}

// ---------------------------------------------------------------------------
// Blocks

interface Block {
  start: number;
  end: number;
  format: TraceFormat | null;
  frames: FrameDraft[];
  errors: ErrorDraft[];
  strong: boolean;
}

function termFor(
  input: string,
  start: number,
  end: number,
  value: string,
  role: TraceRole,
  line?: number | null,
  column?: number | null,
): TermNode {
  const c = classifyToken(value);
  const node: TermNode = {
    kind: 'term',
    text: input.slice(start, end),
    start,
    end,
    value: role === 'path' ? value : c.value,
    shape: role === 'path' ? 'path' : c.shape,
    stop: false,
    trace: role,
  };
  if (line != null) node.line = line;
  if (column != null) node.column = column;
  return node;
}

function blockToNode(input: string, b: Block): TraceNode {
  const terms: TermNode[] = [];
  const seen = new Set<string>();
  const add = (t: TermNode): void => {
    const key = `${t.trace}\u0000${t.value.toLowerCase()}`;
    if (seen.has(key)) return;
    seen.add(key);
    terms.push(t);
  };
  type Ev = { at: number; frame?: FrameDraft; error?: ErrorDraft };
  const events: Ev[] = [
    ...b.frames.map((frame) => ({ at: frame.start, frame })),
    ...b.errors.map((error) => ({ at: error.start, error })),
  ].sort((x, y) => x.at - y.at);
  for (const ev of events) {
    if (ev.error) {
      const e = ev.error;
      if (e.typeEnd > e.typeStart) {
        const last = e.type.slice(e.type.lastIndexOf('.') + 1);
        add(termFor(input, e.typeStart, e.typeEnd, last, 'error-type'));
      }
      if (e.messageStart >= 0) {
        const msg: QueryNode[] = [];
        tokenize(
          input,
          e.messageStart,
          e.messageEnd,
          { filters: false, phrases: true, trace: 'message' },
          msg,
        );
        for (const n of msg) {
          if (n.kind === 'term') add(n);
          else if (n.kind === 'phrase') {
            for (const pt of n.terms) add({ ...pt, trace: 'message' });
          }
        }
      }
    } else if (ev.frame && !ev.frame.external) {
      const f = ev.frame;
      if (f.pathValue && f.pathStart >= 0) {
        add(termFor(input, f.pathStart, f.pathEnd, f.pathValue, 'path', f.line, f.column));
      }
      if (f.fnValue && f.fnStart >= 0) {
        add(termFor(input, f.fnStart, f.fnEnd, f.fnValue, 'function'));
      }
    }
  }
  const format = b.format ?? b.frames.find((f) => f.format !== 'generic')?.format ?? 'generic';
  return {
    kind: 'trace',
    text: input.slice(b.start, b.end),
    start: b.start,
    end: b.end,
    format,
    frames: b.frames.map((f) => ({
      path: f.path,
      line: f.line,
      column: f.column,
      function: f.function,
      external: f.external,
      start: f.start,
      end: f.end,
    })),
    errors: b.errors.map((e) => ({
      type: e.type,
      message: e.message,
      start: e.start,
      end: e.end,
    })),
    terms,
  };
}

/**
 * Finds the stack-trace blocks of `input`, in order, without overlaps.
 * Text between them is left to the ordinary tokenizer.
 */
export function detectTraces(input: string): TraceNode[] {
  // Cheap pre-check: every recognised line has one of these.
  if (
    !/at |File "|Error|Exception|panic|goroutine|Warning|Fault|Failure|Exit|Interrupt|\.go:/.test(
      input,
    )
  ) {
    return [];
  }
  const lines = splitLines(input);
  const out: TraceNode[] = [];
  let block: Block | null = null;
  let lastPyFrameIndent = -1;
  const close = (): void => {
    if (block && (block.frames.length > 0 || block.strong)) out.push(blockToNode(input, block));
    block = null;
    lastPyFrameIndent = -1;
  };
  let i = 0;
  while (i < lines.length) {
    const ln = lines[i]!;
    if (ln.text.trim() === '') {
      // Blank lines inside a block are kept only if the block goes on after them.
      i++;
      continue;
    }
    const r = classify(lines, i);
    if (r.kind === 'other') {
      if (
        block !== null &&
        lastPyFrameIndent >= 0 &&
        indentOf(ln.text) > lastPyFrameIndent &&
        ln.text.length <= MAX_TRACE_LINE
      ) {
        // The source line Python prints under a frame: code, but the frame already points at it.
        (block as Block).end = ln.end;
        lastPyFrameIndent = -1;
        i++;
        continue;
      }
      close();
      i++;
      continue;
    }
    const endLine = lines[i + r.lines - 1]!;
    if (block === null) {
      block = {
        start: ln.start,
        end: endLine.end,
        format: null,
        frames: [],
        errors: [],
        strong: false,
      };
    }
    const b: Block = block;
    b.end = endLine.end;
    lastPyFrameIndent = -1;
    if (r.kind === 'frame') {
      b.frames.push(r.frame);
      if (r.frame.format === 'python') lastPyFrameIndent = indentOf(ln.text);
      if (b.format === null && r.frame.format !== 'generic') b.format = r.frame.format;
    } else if (r.kind === 'error') {
      b.errors.push(r.error);
      if (r.strong) b.strong = true;
      if (r.frame) b.frames.push(r.frame);
      if (b.format === null && r.format !== null) b.format = r.format;
    } else {
      if (r.frame) b.frames.push(r.frame);
      if (b.format === null && r.format !== null) b.format = r.format;
    }
    i += r.lines;
  }
  close();
  return out;
}
