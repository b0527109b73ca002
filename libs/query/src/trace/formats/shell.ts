/**
 * Shell errors: bash's `./deploy.sh: line 12: foo: command not found` and,
 * for scripts named as such, zsh's `deploy.zsh:12: command not found: foo`.
 * The script and line are the frame; the rest is the message. A shell
 * prints no error type and no backtrace, so one such line is a block.
 */
import { errorDraft, type FrameRules, frameFrom, group, unnamedType } from '../drafts.js';
import { errorAt, type TraceRecognizer } from '../recognizer.js';

const RE_BASH = /^(\S+?): line (\d+): (.+)$/d;
const RE_ZSH = /^(\S+?\.(?:sh|bash|zsh)):(\d+): (.+)$/d;

const rules: FrameRules = {
  format: 'shell',
  // `bash: line 1: ...` is the interactive shell or `bash -c`, not a script.
  isExternal: (path) => /^-?(?:ba|z|da|k)?sh$|^environment$/.test(path ?? ''),
  normalizeFunction: (f) => f,
};

export const shell: TraceRecognizer = {
  format: 'shell',
  hint: /: line \d|\.(?:sh|bash|zsh):\d/,
  recognize({ lines, i }) {
    const ln = lines[i]!;
    const m = RE_BASH.exec(ln.text) ?? RE_ZSH.exec(ln.text);
    if (!m) return null;
    const frame = frameFrom(rules, ln, m, { path: 1, line: 2 });
    const message = group(m, 3, ln.start);
    return errorAt(
      'shell',
      frame,
      errorDraft(unnamedType('error', ln.start), message, ln.start, ln.end),
    );
  },
};
