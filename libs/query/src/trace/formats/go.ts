/**
 * Go panics: `panic: msg` and `fatal error: msg`, `goroutine 1 [running]:`,
 * a function line followed by a tab-indented `/x/y.go:12 +0x1d` line,
 * `created by ...`, `[signal ...]`, `exit status 2`.
 */
import { errorDraft, type FrameRules, frameDraft, group } from '../drafts.js';
import { MAX_TRACE_LINE } from '../lines.js';
import type { TraceRecognizer } from '../recognizer.js';

const RE_GOROUTINE = /^goroutine \d+ \[[^\]]*\]:\s*$/;
const RE_LOCATION = /^\t(\S+\.(?:go|s)):(\d+)(?: \+0x[0-9a-fA-F]+)?\s*$/d;
const RE_CREATED = /^created by (\S+)(?: in goroutine \d+)?\s*$/d;
const RE_FUNC = /^([^\s(][^\s]*?)\((?:[^()]*)\)\s*$/d;
const RE_NOISE = /^(?:\[signal [^\]]*\]|exit status \d+|\s*\[recovered\])\s*$/;
const RE_PANIC = /^(panic|fatal error): (.+)$/d;

const rules: FrameRules = {
  format: 'go',
  isExternal: (path, fn) => {
    const p = path ?? '';
    return (
      p.includes('/pkg/mod/') ||
      /(?:^|\/)go[\w.-]*(?:\/libexec)?\/src\/[a-z0-9_]+(?:\/|\.go$)/.test(p) ||
      /^(?:runtime|testing|reflect|sync)\./.test(fn ?? '')
    );
  },
  normalizeFunction: (raw) => {
    let f = raw;
    const slash = f.lastIndexOf('/');
    if (slash >= 0) f = f.slice(slash + 1);
    f = f.replace(/(?:\.func\d+)+(?:\.\d+)*$/, '').replace(/\.\d+$/, '');
    const recv = /^[\w-]+\.\(\*?(\w+)\)\.(\w+)/.exec(f);
    if (recv) return `${recv[1]}.${recv[2]}`;
    return f.replace(/\[\.\.\.\]/g, '') || null;
  },
};

export const go: TraceRecognizer = {
  format: 'go',
  hint: /panic|fatal error|goroutine|\.go:|\.s:|exit status|\[signal|\[recovered/,
  recognize({ lines, i }) {
    const ln = lines[i]!;
    const t = ln.text;
    const base = ln.start;
    if (RE_GOROUTINE.test(t) || RE_NOISE.test(t)) return { kind: 'noise', format: 'go', lines: 1 };
    let m = RE_LOCATION.exec(t);
    if (m) {
      const frame = frameDraft(rules, ln.start, ln.end, group(m, 1, base), m[2], undefined, null);
      return { kind: 'frame', frame, lines: 1 };
    }
    // A function line is only known by the location line under it.
    const next = lines[i + 1];
    if (next && next.text.length <= MAX_TRACE_LINE) {
      const loc = RE_LOCATION.exec(next.text);
      const fm = loc ? (RE_CREATED.exec(t) ?? RE_FUNC.exec(t)) : null;
      if (loc && fm) {
        const frame = frameDraft(
          rules,
          ln.start,
          next.end,
          group(loc, 1, next.start),
          loc[2],
          undefined,
          group(fm, 1, base),
        );
        return { kind: 'frame', frame, lines: 2 };
      }
    }
    m = RE_PANIC.exec(t);
    if (m) {
      return {
        kind: 'error',
        error: errorDraft(group(m, 1, base)!, group(m, 2, base), ln.start, ln.end),
        format: 'go',
        lines: 1,
        strong: true,
      };
    }
    return null;
  },
};
