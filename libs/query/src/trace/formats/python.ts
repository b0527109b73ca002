/**
 * Python tracebacks: `Traceback (most recent call last):`, frames
 * `File "x.py", line 3, in f` (the source line and carets printed under a
 * frame join the block, see trace.ts), and the separators of chained
 * exceptions. The closing `ValueError: msg` is an ordinary error line.
 */
import { type FrameRules, frameFrom } from '../drafts.js';
import type { TraceRecognizer } from '../recognizer.js';

const RE_FRAME = /^\s*File "([^"\n]+)", line (\d+)(?:, in (\S.*))?$/d;
const RE_NOISE =
  /^\s*(?:Traceback \(most recent call last\):|During handling of the above exception, another exception occurred:|The above exception was the direct cause of the following exception:)\s*$/;

const rules: FrameRules = {
  format: 'python',
  isExternal: (path) => {
    const p = path ?? '';
    return (
      p.includes('site-packages') ||
      p.includes('dist-packages') ||
      /[\\/]lib[\\/]python\d/.test(p) ||
      p.startsWith('<')
    );
  },
  normalizeFunction: (f) => f,
};

export const python: TraceRecognizer = {
  format: 'python',
  hint: /File "|Traceback|above exception/,
  outermostFirst: true,
  protocolHooks: /^__\w+__$/,
  recognize({ lines, i }) {
    const ln = lines[i]!;
    const m = RE_FRAME.exec(ln.text);
    if (m) {
      const frame = frameFrom(rules, ln, m, { path: 1, line: 2, fn: 3 });
      return { kind: 'frame', frame, lines: 1, sourceBelow: true };
    }
    if (RE_NOISE.test(ln.text)) return { kind: 'noise', format: 'python', lines: 1 };
    return null;
  },
};
