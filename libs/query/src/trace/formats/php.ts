/**
 * PHP: `PHP Fatal error:  Uncaught App\Billing\AmountError: msg in
 * /var/www/src/Invoice.php:27` (and warnings, notices, `... on line 27`),
 * `Stack trace:`, frames `#0 /var/www/src/Invoice.php(41):
 * App\Billing\Invoice->total(-5)` or `#1 [internal function]: ...`,
 * `#2 {main}`, `thrown in ... on line 27`. Functions become the chunker's
 * symbol paths, which carry no namespace: `App\Billing\Invoice->total`
 * and `Invoice::make` are `Invoice.total` and `Invoice.make`.
 */
import { errorDraft, type FrameRules, frameFrom, group, slice } from '../drafts.js';
import { errorAt, oneLineFrame, type TraceRecognizer } from '../recognizer.js';

const RE_FRAME = /^\s*#\d+ (?:(\S.*?)\((\d+)\)|\[internal function\]): (.+?)(?:\(.*\))?\s*$/d;
const RE_MAIN = /^\s*#\d+ \{main\}\s*$/;
const RE_ERROR =
  /^(?:PHP )?(Fatal error|Parse error|Warning|Notice|Deprecated):\s+(?:Uncaught ([\w\\]+)(?:: | in ))?(.*?) in (\S+?\.php)(?::(\d+)| on line (\d+))\s*$/d;
const RE_THROWN = /^\s*thrown in (\S+?\.php) on line (\d+)\s*$/d;
const RE_NOISE = /^\s*(?:PHP )?Stack trace:\s*$/;

const rules: FrameRules = {
  format: 'php',
  isExternal: (path, fn) =>
    (path ?? '').includes('/vendor/') ||
    /^(?:Illuminate|Symfony|PHPUnit|Composer)\\/.test(fn ?? ''),
  normalizeFunction: (raw) => {
    const m = /^(?:[\w\\]*\\)?(\w+)(?:->|::)(.+)$/.exec(raw);
    // A closure is reported as `{closure}`: the class is what the repository names.
    if (m) return m[2]!.startsWith('{') ? m[1]! : `${m[1]}.${m[2]}`;
    return raw.slice(raw.lastIndexOf('\\') + 1) || null;
  },
};

export const php: TraceRecognizer = {
  format: 'php',
  hint: /#\d|Stack trace|thrown in|error:|Warning:|Notice:|Deprecated:/,
  recognize({ lines, i }) {
    const ln = lines[i]!;
    let m = RE_FRAME.exec(ln.text);
    if (m && (m[1] === undefined || m[1].endsWith('.php'))) {
      return oneLineFrame(frameFrom(rules, ln, m, { path: 1, line: 2, fn: 3 }));
    }
    if (RE_MAIN.test(ln.text) || RE_NOISE.test(ln.text)) {
      return { kind: 'noise', format: 'php', lines: 1 };
    }
    m = RE_THROWN.exec(ln.text);
    if (m) {
      return {
        kind: 'noise',
        format: 'php',
        lines: 1,
        frame: frameFrom(rules, ln, m, { path: 1, line: 2 }),
      };
    }
    m = RE_ERROR.exec(ln.text);
    if (!m) return null;
    // `App\Billing\AmountError` is searched as `AmountError`, the name its class declares.
    const cls = group(m, 2, ln.start);
    const typeG = cls
      ? slice(cls[0], cls[0].lastIndexOf('\\') + 1, cls[0].length, cls[1])
      : group(m, 1, ln.start)!;
    const frame = frameFrom(rules, ln, m, { path: 4, line: m[5] !== undefined ? 5 : 6 });
    return errorAt('php', frame, errorDraft(typeG, group(m, 3, ln.start), ln.start, ln.end));
  },
};
