/**
 * Lua errors: `lua: cart.lua:12: attempt to index a nil value` (the
 * interpreter's name in front is optional), `stack traceback:`, frames
 * `cart.lua:12: in function 'M.total'` (or `in method`, `in local`,
 * `in upvalue`, `in field`, `in function <cart.lua:10>`, `in main chunk`)
 * and the C frames `[C]: in function 'error'`. Functions become the
 * chunker's symbol paths: `Account:deposit` is `Account.deposit`.
 */
import { errorDraft, type FrameRules, frameFrom, group, unnamedType } from '../drafts.js';
import { errorAt, oneLineFrame, type TraceRecognizer } from '../recognizer.js';

/** Lua shortens long chunk names to `...tail/of/path.lua`. */
const PATH = '(?:\\.\\.\\.)?(\\S+?)';
const RE_FRAME = new RegExp(
  `^\\s*(?:${PATH}:(\\d+)|\\[C\\]): in (?:(?:function|method|local|upvalue|field|global|metamethod) )?(?:'([^']+)'|<[^>]*>|main chunk|\\?)\\s*$`,
  'd',
);
const RE_ERROR = new RegExp(
  `^(?:lua[\\w.]*: )?${PATH.replace('\\S+?', '\\S+?\\.lua')}:(\\d+): (.+)$`,
  'd',
);
const RE_NOISE = /^\s*(?:stack traceback:|\(\.\.\.tail calls\.\.\.\))\s*$/;

const rules: FrameRules = {
  format: 'lua',
  isExternal: (path) => path === null || /\/share\/lua\/|\/lib\/lua\/|luarocks/.test(path),
  normalizeFunction: (f) => f.replaceAll(':', '.'),
};

export const lua: TraceRecognizer = {
  format: 'lua',
  hint: /\.lua:|: in |traceback|tail calls/,
  recognize({ lines, i }) {
    const ln = lines[i]!;
    if (RE_NOISE.test(ln.text)) return { kind: 'noise', format: 'lua', lines: 1 };
    let m = RE_FRAME.exec(ln.text);
    if (m) return oneLineFrame(frameFrom(rules, ln, m, { path: 1, line: 2, fn: 3 }));
    m = RE_ERROR.exec(ln.text);
    if (!m) return null;
    const frame = frameFrom(rules, ln, m, { path: 1, line: 2 });
    const message = group(m, 3, ln.start);
    return errorAt(
      'lua',
      frame,
      errorDraft(unnamedType('error', ln.start), message, ln.start, ln.end),
    );
  },
};
