/**
 * Stack-trace and error-line detection. A pasted bug report is mostly
 * noise for a search engine (addresses, goroutine headers, runtime and
 * dependency frames); its strong signals are the frames' paths and
 * functions in the user's own code, the error types and the error
 * messages. This module finds blocks of trace lines and reduces each to a
 * TraceNode carrying those signals as terms.
 *
 * The line formats recognised are the entries of the recognizer table
 * (recognizers.ts), one module per runtime in formats/.
 *
 * A block needs at least one frame or one error line with a message: a
 * bare `ValueError` on its own is an identifier query, not a bug report.
 * Lines longer than MAX_TRACE_LINE are never trace lines, which bounds the
 * regex work per line and keeps the scan linear.
 */
import type { TraceNode } from '../types.js';
import { type Block, blockToNode, type OwnFrames } from './block-node.js';
import { candidateRecognizers, classify } from './classify.js';
import { indentOf, MAX_TRACE_LINE, splitLines } from './lines.js';

/**
 * Finds the stack-trace blocks of `input`, in order, without overlaps.
 * Text between them is left to the ordinary tokenizer.
 */
export function detectTraces(input: string, ownFrames?: OwnFrames): TraceNode[] {
  // Cheap pre-check: only the formats whose marks the input holds are tried, most often none.
  const recognizers = candidateRecognizers(input);
  if (recognizers.length === 0) return [];
  const lines = splitLines(input);
  const out: TraceNode[] = [];
  let block: Block | null = null;
  let sourceIndent = -1;
  const close = (): void => {
    if (block && (block.frames.length > 0 || block.strong))
      out.push(blockToNode(input, block, ownFrames));
    block = null;
    sourceIndent = -1;
  };
  let i = 0;
  while (i < lines.length) {
    const ln = lines[i]!;
    if (ln.text.trim() === '') {
      // Blank lines inside a block are kept only if the block goes on after them.
      i++;
      continue;
    }
    const r = classify(lines, i, recognizers);
    if (r.kind === 'other') {
      if (
        block !== null &&
        sourceIndent >= 0 &&
        indentOf(ln.text) > sourceIndent &&
        ln.text.length <= MAX_TRACE_LINE
      ) {
        // The source line printed under a frame (Python): code, but the frame already points at it.
        (block as Block).end = ln.end;
        sourceIndent = -1;
        i++;
        continue;
      }
      close();
      i++;
      continue;
    }
    const endLine = lines[i + r.lines - 1]!;
    if (block === null) {
      block = {
        start: ln.start,
        end: endLine.end,
        format: null,
        frames: [],
        errors: [],
        strong: false,
      };
    }
    const b: Block = block;
    b.end = endLine.end;
    sourceIndent = -1;
    if (r.kind === 'frame') {
      b.frames.push(r.frame);
      if (r.sourceBelow) sourceIndent = indentOf(ln.text);
      if (b.format === null && r.frame.format !== 'generic') b.format = r.frame.format;
    } else if (r.kind === 'error') {
      b.errors.push(r.error);
      if (r.strong) b.strong = true;
      if (r.frame) b.frames.push(r.frame);
      if (b.format === null && r.format !== null) b.format = r.format;
    } else {
      if (r.frame) b.frames.push(r.frame);
      if (b.format === null && r.format !== null) b.format = r.format;
    }
    i += r.lines;
  }
  close();
  return out;
}

/**
 * The paths of the frames read as dependencies' (an installed package, a
 * module cache, a crate registry), as printed, once each: what the caller
 * may find to be the searched repository's own files (OwnFrames).
 */
export function externalFramePaths(input: string): string[] {
  const paths = new Set<string>();
  for (const t of detectTraces(input)) {
    for (const f of t.frames) if (f.external && f.path !== null) paths.add(f.path);
  }
  return [...paths];
}
