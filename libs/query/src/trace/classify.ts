/**
 * Line classification: whether a line is a stack frame, an error line,
 * trace noise or none of these. Recognised (one line at a time, with at
 * most one line of look-ahead):
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
 */
import type { TraceFormat } from '../types.js';
import {
  type ErrorDraft,
  errorDraft,
  type FrameDraft,
  frameDraft,
  group,
  splitLocation,
} from './drafts.js';
import { indentOf, type Line, MAX_TRACE_LINE } from './lines.js';

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

export type LineResult =
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
export function classify(lines: Line[], i: number, shallow = false): LineResult {
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
