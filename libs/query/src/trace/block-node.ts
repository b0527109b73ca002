/**
 * A block of trace lines reduced to a TraceNode: its frames and errors, and
 * as terms the error types, the messages' words and the paths and functions
 * of the frames in the user's own code.
 */
import { classifyToken } from '../parse/shape.js';
import { tokenize } from '../parse/tokenize.js';
import type { QueryNode, TermNode, TraceFormat, TraceNode, TraceRole } from '../types.js';
import type { ErrorDraft, FrameDraft } from './drafts.js';
import { RECOGNIZERS } from './recognizers.js';

export interface Block {
  start: number;
  end: number;
  format: TraceFormat | null;
  frames: FrameDraft[];
  errors: ErrorDraft[];
  strong: boolean;
}

function termFor(
  input: string,
  start: number,
  end: number,
  value: string,
  role: TraceRole,
  line?: number | null,
  column?: number | null,
): TermNode {
  const c = classifyToken(value);
  const node: TermNode = {
    kind: 'term',
    text: input.slice(start, end),
    start,
    end,
    value: role === 'path' ? value : c.value,
    shape: role === 'path' ? 'path' : c.shape,
    stop: false,
    trace: role,
  };
  if (line != null) node.line = line;
  if (column != null) node.column = column;
  return node;
}

export function blockToNode(input: string, b: Block): TraceNode {
  const terms: TermNode[] = [];
  const seen = new Set<string>();
  const add = (t: TermNode): void => {
    const key = `${t.trace}\u0000${t.value.toLowerCase()}`;
    if (seen.has(key)) return;
    seen.add(key);
    terms.push(t);
  };
  type Ev = { at: number; frame?: FrameDraft; error?: ErrorDraft };
  const events: Ev[] = [
    ...b.frames.map((frame) => ({ at: frame.start, frame })),
    ...b.errors.map((error) => ({ at: error.start, error })),
  ].sort((x, y) => x.at - y.at);
  for (const ev of events) {
    if (ev.error) {
      const e = ev.error;
      if (e.typeEnd > e.typeStart) {
        const last = e.type.slice(e.type.lastIndexOf('.') + 1);
        add(termFor(input, e.typeStart, e.typeEnd, last, 'error-type'));
      }
      if (e.messageStart >= 0) {
        const msg: QueryNode[] = [];
        tokenize(
          input,
          e.messageStart,
          e.messageEnd,
          { filters: false, phrases: true, trace: 'message' },
          msg,
        );
        for (const n of msg) {
          if (n.kind === 'term') add(n);
          else if (n.kind === 'phrase') {
            for (const pt of n.terms) add({ ...pt, trace: 'message' });
          }
        }
      }
    } else if (ev.frame && !ev.frame.external) {
      const f = ev.frame;
      if (f.pathValue && f.pathStart >= 0) {
        add(termFor(input, f.pathStart, f.pathEnd, f.pathValue, 'path', f.line, f.column));
      }
      if (f.fnValue && f.fnStart >= 0) {
        add(termFor(input, f.fnStart, f.fnEnd, f.fnValue, 'function'));
      }
    }
  }
  const format = b.format ?? b.frames.find((f) => f.format !== 'generic')?.format ?? 'generic';
  return {
    kind: 'trace',
    text: input.slice(b.start, b.end),
    start: b.start,
    end: b.end,
    format,
    frames: b.frames.map((f) => ({
      path: f.path,
      line: f.line,
      column: f.column,
      function: f.function,
      external: f.external,
      start: f.start,
      end: f.end,
    })),
    errors: b.errors.map((e) => ({
      type: e.type,
      message: e.message,
      start: e.start,
      end: e.end,
    })),
    terms,
    ...failingFrame(b.frames, format),
  };
}

/** The innermost user frame naming a function: TraceNode.failingFunction and failingLocation. */
function failingFrame(
  frames: readonly FrameDraft[],
  format: TraceFormat,
): Pick<TraceNode, 'failingFunction' | 'failingLocation'> {
  const recognizer = RECOGNIZERS.find((r) => r.format === format);
  const ordered = recognizer?.outermostFirst ? [...frames].reverse() : frames;
  const hooks = recognizer?.protocolHooks;
  const f = ordered.find((x) => !x.external && x.fnValue !== null && !hooks?.test(x.fnValue));
  return {
    failingFunction: f?.fnValue ?? null,
    failingLocation: f?.pathValue ? { path: f.pathValue, line: f.line } : null,
  };
}
