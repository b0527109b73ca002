/**
 * Line classification: whether a line is a stack frame, an error line,
 * trace noise or none of these, by the first entry of the recognizer table
 * (recognizers.ts) that knows it. Each entry reads one line and at most
 * one line ahead; the formats are described in the entries' modules.
 */
import { type Line, MAX_TRACE_LINE } from './lines.js';
import type { LineResult, TraceRecognizer } from './recognizer.js';
import { RECOGNIZERS } from './recognizers.js';

/** The recognizers whose formats can occur in `input` at all (each entry's cheap hint). */
export function candidateRecognizers(input: string): TraceRecognizer[] {
  return RECOGNIZERS.filter((r) => r.hint.test(input));
}

/**
 * Classifies lines[i] (and maybe lines[i + 1]) with `recognizers`. `shallow`
 * stops the one look-ahead (is the line after a Rust panic a trace line?)
 * from looking ahead again, so a run of such lines is still classified in
 * linear time.
 */
export function classify(
  lines: readonly Line[],
  i: number,
  recognizers: readonly TraceRecognizer[] = RECOGNIZERS,
  shallow = false,
): LineResult {
  if (lines[i]!.text.length > MAX_TRACE_LINE) return { kind: 'other' };
  const isTraceLine = shallow
    ? null
    : (j: number): boolean => classify(lines, j, recognizers, true).kind !== 'other';
  for (const r of recognizers) {
    const result = r.recognize({ lines, i, isTraceLine });
    if (result !== null) return result;
  }
  return { kind: 'other' };
}
