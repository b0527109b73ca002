/**
 * Rust panics: `thread 'main' panicked at src/main.rs:4:5:` (message on the
 * next line) or the older `panicked at 'msg', src/main.rs:4:5`, backtrace
 * lines `  3: crate::f` with their `at ./src/x.rs:1:2` under them.
 */
import { errorDraft, type FrameRules, frameDraft, group } from '../drafts.js';
import { indentOf, MAX_TRACE_LINE } from '../lines.js';
import type { TraceRecognizer } from '../recognizer.js';
import { RE_AT_LOCATION } from './javascript.js';

const RE_PANIC = /^thread '[^']*' panicked at (.+)$/d;
const RE_NEW_LOCATION = /^(\S+?):(\d+):(\d+):$/d;
const RE_OLD_LOCATION = /^'(.*)', (\S+?):(\d+):(\d+)$/d;
const RE_FRAME_FN = /^\s*\d+: (\S+)\s*$/d;
const RE_NOISE = /^(?:note: run with `RUST_BACKTRACE=.*|stack backtrace:)\s*$/;

const rules: FrameRules = {
  format: 'rust',
  isExternal: (path, fn) => {
    const p = path ?? '';
    return (
      p.startsWith('/rustc/') ||
      p.includes('/.cargo/registry/') ||
      p.includes('/.rustup/') ||
      /^<?(?:std|core|alloc|test)::|^rust_begin_unwind|^__rust/.test(fn ?? '')
    );
  },
  normalizeFunction: (raw) => {
    const f = raw.replace(/::h[0-9a-f]{16}$/, '').replace(/::\{\{closure\}\}/g, '');
    if (f.startsWith('<')) {
      // `<crate::Foo as core::fmt::Display>::fmt` -> `Foo::fmt`
      const m = /^<([\w:]+)(?: as [^>]*)?>::(\w+)$/.exec(f);
      if (!m) return null;
      const ty = m[1]!.split('::').pop()!;
      return `${ty}::${m[2]}`;
    }
    const segs = f.split('::').filter((s) => s !== '');
    return segs.slice(-2).join('::') || null;
  },
};

export const rust: TraceRecognizer = {
  format: 'rust',
  hint: /panicked|\.rs:|\d: |backtrace|BACKTRACE/,
  recognize({ lines, i, isTraceLine }) {
    const ln = lines[i]!;
    const t = ln.text;
    const base = ln.start;
    const next = lines[i + 1];
    let m = RE_AT_LOCATION.exec(t);
    if (m && m[1]!.endsWith('.rs')) {
      const frame = frameDraft(rules, ln.start, ln.end, group(m, 1, base), m[2], m[3], null);
      return { kind: 'frame', frame, lines: 1 };
    }
    m = RE_PANIC.exec(t);
    if (m) {
      const rest = group(m, 1, base)!;
      const restBase = rest[1];
      const typeG: [string, number, number] = ['panic', ln.start, ln.start];
      const newLoc = RE_NEW_LOCATION.exec(rest[0]);
      if (newLoc) {
        const frame = frameDraft(
          rules,
          ln.start,
          ln.end,
          group(newLoc, 1, restBase),
          newLoc[2],
          newLoc[3],
          null,
        );
        // The message is the next line, unless that line is part of the trace itself.
        if (
          isTraceLine !== null &&
          next &&
          next.text.trim() !== '' &&
          next.text.length <= MAX_TRACE_LINE &&
          !isTraceLine(i + 1)
        ) {
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
        return { kind: 'frame', frame, lines: 1 };
      }
      const old = RE_OLD_LOCATION.exec(rest[0]);
      const frame = old
        ? frameDraft(rules, ln.start, ln.end, group(old, 2, restBase), old[3], old[4], null)
        : undefined;
      return {
        kind: 'error',
        error: errorDraft(typeG, old ? group(old, 1, restBase) : rest, ln.start, ln.end),
        format: 'rust',
        lines: 1,
        strong: true,
        ...(frame ? { frame } : {}),
      };
    }
    m = RE_FRAME_FN.exec(t);
    if (m) {
      const fn = group(m, 1, base)!;
      if (fn[0].includes('::') || fn[0].startsWith('rust_') || fn[0].startsWith('__rust')) {
        // `  3: crate::f` with its `at src/x.rs:1:2` on the next line.
        const at =
          next && next.text.length <= MAX_TRACE_LINE ? RE_AT_LOCATION.exec(next.text) : null;
        if (at && next) {
          const frame = frameDraft(
            rules,
            ln.start,
            next.end,
            group(at, 1, next.start),
            at[2],
            at[3],
            fn,
          );
          return { kind: 'frame', frame, lines: 2 };
        }
        const frame = frameDraft(rules, ln.start, ln.end, null, undefined, undefined, fn);
        return { kind: 'frame', frame, lines: 1 };
      }
    }
    if (RE_NOISE.test(t)) return { kind: 'noise', format: 'rust', lines: 1 };
    return null;
  },
};
