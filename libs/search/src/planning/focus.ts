/**
 * Focus scoring: a question about the implementation demotes test files, a
 * question about tests demotes everything else, by multiplying the score
 * by the out-of-focus multiplier (default 0.5, the codelibrarian choice:
 * an out-of-focus result must score twice as high to stay ahead, so a
 * wrong guess demotes, never hides). An explicit focus in the request
 * overrides inference; 'all' changes nothing. Test files are recognised by
 * path and language conventions (@codesift/analysis isTestPath).
 */
import { type Focus, inferFocus, isTestPath, type ParsedQuery } from '@codesift/analysis';
import type { QueryPlan } from './types.js';

export const DEFAULT_FOCUS_MULTIPLIER = 0.5;

export function planFocus(
  parsed: ParsedQuery,
  explicit: Focus | undefined,
  scoring: boolean,
  multiplier: number,
): QueryPlan['focus'] {
  const inferred = explicit === undefined ? inferFocus(parsed) : null;
  const focus = explicit ?? inferred!.focus;
  return {
    focus,
    source: explicit === undefined ? 'inferred' : 'request',
    reason: inferred ? inferred.reason : `set by the request (${explicit})`,
    scoring: scoring && focus !== 'all' && multiplier !== 1,
    outOfFocusMultiplier: multiplier,
  };
}

/** The multiplier for one result: 1 in focus (or with scoring off), the plan's multiplier out of it. */
export function focusMultiplier(
  focus: QueryPlan['focus'],
  path: string,
  language?: string,
): number {
  if (!focus.scoring) return 1;
  const test = isTestPath(path, language);
  const inFocus = focus.focus === 'tests' ? test : !test;
  return inFocus ? 1 : focus.outOfFocusMultiplier;
}
