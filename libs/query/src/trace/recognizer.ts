/**
 * What one runtime's recognizer is: an entry of the recognizer table
 * (recognizers.ts). Each entry knows the lines its runtime prints (frames,
 * error lines, noise such as headers and separators), which of its frames
 * are runtime or dependency code, and how a printed function name reduces
 * to the symbol path the chunker gives the same definition. Adding a
 * runtime is one entry in the table and a fixture test.
 */
import type { TraceFormat } from '../types.js';
import type { ErrorDraft, FrameDraft } from './drafts.js';
import type { Line } from './lines.js';

export type LineResult =
  | {
      kind: 'frame';
      frame: FrameDraft;
      lines: number;
      /** The runtime prints the frame's source line under it (Python): that line belongs to the block. */
      sourceBelow?: boolean;
    }
  | {
      kind: 'error';
      error: ErrorDraft;
      format: TraceFormat | null;
      lines: number;
      strong: boolean;
      /** The location printed on the error line itself (Rust panics, Ruby, Lua, shell). */
      frame?: FrameDraft;
    }
  | { kind: 'noise'; format: TraceFormat | null; lines: number; frame?: FrameDraft }
  | { kind: 'other' };

/** The lines of the input and one line's place among them. */
export interface LineAt {
  lines: readonly Line[];
  i: number;
  /**
   * Whether line `j` is a trace line of any format, for a recognizer that
   * must look one line ahead (is the line after a Rust panic its message?);
   * null inside such a look-ahead, so classifying stays linear.
   */
  isTraceLine: ((j: number) => boolean) | null;
}

export interface TraceRecognizer {
  /** The format a block gets from this entry's lines; null for format-less lines (error lines). */
  format: TraceFormat | null;
  /**
   * A cheap test on the whole input: a line of this format can only occur
   * in a text this matches. Most pasted queries are not traces and stop here.
   */
  hint: RegExp;
  /**
   * The runtime prints the outermost call first and the failing one last
   * (Python's `most recent call last`); by default the innermost comes first.
   */
  outermostFirst?: boolean;
  /**
   * Functions that every class defines by protocol (Python's `__getattr__`,
   * `__call__`): printed without their class, such a name identifies no one
   * definition, so the failing frame is the next one out.
   */
  protocolHooks?: RegExp;
  /** What lines[i] (and maybe the lines after it) is in this format, or null when it is none of its lines. */
  recognize(at: LineAt): Exclude<LineResult, { kind: 'other' }> | null;
}

export type FrameResult = Extract<LineResult, { kind: 'frame' }>;
export type ErrorResult = Extract<LineResult, { kind: 'error' }>;

/** A frame that is one whole line. */
export function oneLineFrame(frame: FrameDraft): FrameResult {
  return { kind: 'frame', frame, lines: 1 };
}

/**
 * One line that is both an error and the frame it happened in (Ruby's
 * first line, PHP's `Fatal error: ... in file:line`, Lua, shell, UBSan).
 */
export function errorAt(
  format: TraceFormat,
  frame: FrameDraft | undefined,
  error: ErrorDraft,
  strong = true,
): ErrorResult {
  return { kind: 'error', error, format, lines: 1, strong, ...(frame ? { frame } : {}) };
}
