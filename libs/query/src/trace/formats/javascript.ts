/**
 * V8 stacks (Node, Chrome): `at f (file.js:1:2)`, `at file.js:1:2`,
 * `at async f (...)`, `at new C (...)`. The error line above them is an
 * ordinary error line.
 */
import { type FrameRules, frameDraft, group, splitLocation } from '../drafts.js';
import type { TraceRecognizer } from '../recognizer.js';

const RE_FRAME = /^\s*at (?:async )?(?:new )?([^\s()][^()]*?) \((.+)\)\s*$/d;
/** `at path:line:col` without a function; Rust prints the same under its frames (rust.ts). */
export const RE_AT_LOCATION = /^\s*at (\S+?):(\d+)(?::(\d+))?\s*$/d;

const rules: FrameRules = {
  format: 'javascript',
  isExternal: (path) => {
    const p = path ?? '';
    return (
      p.startsWith('node:') ||
      p.startsWith('internal/') ||
      p.includes('node_modules/') ||
      p === '<anonymous>' ||
      p === 'native'
    );
  },
  normalizeFunction: (raw) => {
    let f = raw.replace(/ \[as [^\]]*\]$/, '');
    if (f.startsWith('Object.')) f = f.slice(7);
    if (f.includes('<anonymous>') || f === '') return null;
    return f;
  },
};

export const javascript: TraceRecognizer = {
  format: 'javascript',
  hint: /at /,
  recognize({ lines, i }) {
    const ln = lines[i]!;
    const base = ln.start;
    let m = RE_FRAME.exec(ln.text);
    if (m) {
      const loc = splitLocation(group(m, 2, base)!);
      const frame = frameDraft(
        rules,
        ln.start,
        ln.end,
        // `at async Promise.all (index 0)` names no file.
        loc.line !== undefined ? loc.path : null,
        loc.line,
        loc.column,
        group(m, 1, base),
      );
      return { kind: 'frame', frame, lines: 1 };
    }
    m = RE_AT_LOCATION.exec(ln.text);
    if (m) {
      const frame = frameDraft(rules, ln.start, ln.end, group(m, 1, base), m[2], m[3], null);
      return { kind: 'frame', frame, lines: 1 };
    }
    return null;
  },
};
