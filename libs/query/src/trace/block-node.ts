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

/**
 * Frames that the format's rules read as a dependency's but that name the
 * searched repository's own files: the printed path (FrameDraft.path) to
 * the repository path. A report against a library shows the library as
 * installed (`site-packages/sympy/core/basic.py`, a crate in the cargo
 * registry); only the caller, who knows the repository's files, can tell.
 */
export type OwnFrames = ReadonlyMap<string, string>;

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

export function blockToNode(input: string, block: Block, ownFrames?: OwnFrames): TraceNode {
  const format = blockFormat(block);
  const b =
    ownFrames === undefined || ownFrames.size === 0
      ? block
      : withOwnFrames(block, ownFrames, format);
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
      // An installed frame's function is often a library's entry point the
      // user called, not where it went wrong: its file is the signal.
      if (f.fnValue && f.fnStart >= 0 && !f.installed) {
        add(termFor(input, f.fnStart, f.fnEnd, f.fnValue, 'function'));
      }
    }
  }
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
      ...(f.installed ? { installed: true } : {}),
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

/**
 * `b` with its innermost frame, when the rules read it as a dependency's
 * and `own` names it, as a user frame at the repository path. Only the
 * innermost: a report through an installed library passes many of its
 * files (drivers, dispatchers) on the way to where it failed, and taken
 * together they bury the one the report is about (measured: see
 * docs/EVALUATION.md, installed frames).
 */
function withOwnFrames(b: Block, own: OwnFrames, format: TraceFormat): Block {
  const at = recognizerOf(format)?.outermostFirst ? b.frames.length - 1 : 0;
  const f = b.frames[at];
  const path = f?.external && f.path !== null ? own.get(f.path) : undefined;
  if (f === undefined || path === undefined) return b;
  const frames = [...b.frames];
  frames[at] = { ...f, external: false, pathValue: path, installed: true };
  return { ...b, frames };
}

/** The block's runtime: its own, else the first frame's that names one. */
function blockFormat(b: Block): TraceFormat {
  return b.format ?? b.frames.find((f) => f.format !== 'generic')?.format ?? 'generic';
}

function recognizerOf(format: TraceFormat) {
  return RECOGNIZERS.find((r) => r.format === format);
}

/** The innermost user frame naming a function: TraceNode.failingFunction and failingLocation. */
function failingFrame(
  frames: readonly FrameDraft[],
  format: TraceFormat,
): Pick<TraceNode, 'failingFunction' | 'failingLocation'> {
  const recognizer = recognizerOf(format);
  const ordered = recognizer?.outermostFirst ? [...frames].reverse() : frames;
  const hooks = recognizer?.protocolHooks;
  const f = ordered.find(
    (x) => !x.external && !x.installed && x.fnValue !== null && !hooks?.test(x.fnValue),
  );
  return {
    failingFunction: f?.fnValue ?? null,
    failingLocation: f?.pathValue ? { path: f.pathValue, line: f.line } : null,
  };
}
