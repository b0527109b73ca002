/**
 * Ruby backtraces: `app/models/order.rb:12:in 'Shop::Order#total'` (Ruby
 * 3.4) and the older `app/models/order.rb:12:in \`total'`, with `from`
 * before the lines after the first. The first line also carries the
 * message and the exception class: `...:in 'Order#total': undefined method
 * 'price' for nil (NoMethodError)`. Functions become the chunker's symbol
 * paths: `Shop::Order#total` and `Shop::Order.create` are
 * `Shop.Order.total` and `Shop.Order.create`; `block in` and `rescue in`
 * name the method they sit in.
 */
import { errorDraft, type FrameRules, frameFrom, group, slice, unnamedType } from '../drafts.js';
import { errorAt, oneLineFrame, type TraceRecognizer } from '../recognizer.js';

const RE_FRAME = /^\s*(?:from )?(\S+?):(\d+):in [`']([^`']+)'(?:: (.*))?$/d;
const RE_LEVELS = /^\s*\.\.\. \d+ levels\.\.\.\s*$/;
/** The exception class Ruby prints after the message: `... for nil (NoMethodError)`. */
const RE_CLASS_AFTER = / \(([A-Z][\w:]*)\)$/d;

const rules: FrameRules = {
  format: 'ruby',
  isExternal: (path) =>
    /\/gems\/|\/rubygems\/|\/lib\/ruby\/|\/\.rbenv\/|\/\.rvm\/|vendor\/bundle\/|^<internal:/.test(
      path ?? '',
    ),
  normalizeFunction: (raw) => {
    const f = raw.replace(/^(?:(?:block(?: \(\d+ levels\))?|rescue|ensure) in )+/, '');
    if (f.startsWith('<')) return null; // <main>, <top (required)>, <class:Order>
    return f.replaceAll('::', '.').replace('#', '.');
  },
};

export const ruby: TraceRecognizer = {
  format: 'ruby',
  hint: /:in [`']|levels\.\.\./,
  recognize({ lines, i }) {
    const ln = lines[i]!;
    if (RE_LEVELS.test(ln.text)) return { kind: 'noise', format: 'ruby', lines: 1 };
    const m = RE_FRAME.exec(ln.text);
    if (!m) return null;
    const frame = frameFrom(rules, ln, m, { path: 1, line: 2, fn: 3 });
    const msg = group(m, 4, ln.start);
    if (msg === null) return oneLineFrame(frame);
    const cls = RE_CLASS_AFTER.exec(msg[0]);
    const typeG = cls ? group(cls, 1, msg[1])! : unnamedType('error', ln.start);
    const msgG = cls ? slice(msg[0], 0, cls.index, msg[1]) : msg;
    return errorAt('ruby', frame, errorDraft(typeG, msgG, ln.start, ln.end));
  },
};
