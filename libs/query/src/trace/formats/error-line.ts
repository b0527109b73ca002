/**
 * Lines of no one runtime: `Name: message` where Name ends in Error,
 * Exception, Warning, Fault, Failure, Panic, Exit or Interrupt, or is
 * `Error`/`Exception` (with the prefixes JavaScript, Java, .NET and
 * pytest print before it), and the carets that point at a source line.
 * Last in the table: every runtime's own lines are tried first.
 */
import { errorDraft, group } from '../drafts.js';
import type { TraceRecognizer } from '../recognizer.js';

const RE_CARETS = /^\s*[~^]+\s*$/;
const RE_ERROR_LINE =
  /^\s*(?:Uncaught |Caused by: |Exception in thread "[^"]*" |Unhandled exception\. |E {1,8}|-+> )?([A-Za-z_$][\w$.]*)(?:: ?(.*))?$/d;
const RE_ERROR_SUFFIX = /[a-z0-9_](?:Error|Exception|Warning|Fault|Failure|Panic|Exit|Interrupt)$/;

function isErrorName(name: string): boolean {
  const last = name.slice(name.lastIndexOf('.') + 1);
  if (last === 'Error' || last === 'Exception') return true;
  return RE_ERROR_SUFFIX.test(last);
}

export const errorLine: TraceRecognizer = {
  format: null,
  hint: /Error|Exception|Warning|Fault|Failure|Panic|Exit|Interrupt|\^|~/,
  recognize({ lines, i }) {
    const ln = lines[i]!;
    if (RE_CARETS.test(ln.text)) return { kind: 'noise', format: null, lines: 1 };
    const m = RE_ERROR_LINE.exec(ln.text);
    if (!m || !isErrorName(m[1]!)) return null;
    const msgG = group(m, 2, ln.start);
    return {
      kind: 'error',
      error: errorDraft(group(m, 1, ln.start)!, msgG, ln.start, ln.end),
      format: null,
      lines: 1,
      strong: msgG !== null && msgG[0].trim() !== '',
    };
  },
};
