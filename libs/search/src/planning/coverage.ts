/**
 * Whether a query's files are ranked by the words they cover
 * (file-coverage.ts), and with which words. A short query in prose gets
 * it: a title or a commit subject names a few things, each of which the
 * answer's file tends to hold somewhere. A long report's words point
 * everywhere (the same reason PATH_EVIDENCE_CHARS limits path evidence), so
 * it gets the words of its first line when that line is short: the title a
 * pasted issue or commit message starts with, which then counts in the full
 * text as it does alone (a report should not do worse than its own title).
 * A query of identifiers only asks for a definition, which the definition
 * boost finds.
 */
import type { ParsedQuery } from '@codesift/query';
import { PATH_EVIDENCE_CHARS } from '../definitions.js';
import type { PlannedTerm, QueryPlan } from './types.js';

/**
 * Added to the score of a file covering every query word (twice that when
 * its name holds every word too: file-coverage.ts), in the fusion's
 * scale (the best fused chunk scores 1 under linear fusion): enough to
 * reorder files whose best chunks are close, not to lift a file past a
 * definition or anchor boost. Chosen by evaluation (docs/EVALUATION.md).
 */
export const FILE_COVERAGE_WEIGHT = 0.3;
/** Words shorter than this (`id`, `io`) start too many words to be evidence. */
export const MIN_COVERAGE_WORD = 3;

/**
 * The query words coverage counts (the query's own plain words, at least
 * MIN_COVERAGE_WORD long; of a long report, those of its short first line),
 * or why there are none.
 */
export function coverageWords(
  parsed: ParsedQuery,
  terms: readonly PlannedTerm[],
): { words: string[]; long: boolean } | { none: string } {
  if (parsed.isIdentifierOnly) {
    return { none: 'identifiers only: the definition decides' };
  }
  // A long report's words point everywhere; its first line, a title or a
  // commit subject, is the short query the report is about.
  const summary = parsed.text.trim().split('\n', 1)[0]!.trim();
  const long = parsed.text.length > PATH_EVIDENCE_CHARS;
  if (
    long &&
    (summary.length > PATH_EVIDENCE_CHARS || summary.length === parsed.text.trim().length)
  ) {
    return { none: `${parsed.text.length} chars: a report's words point everywhere` };
  }
  const summaryWords = long ? new Set(summary.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) : null;
  const words = [
    ...new Set(
      terms
        .filter((t) => summaryWords === null || summaryWords.has(t.term))
        // Plain words: a dotted or hyphenated term (`a.b_c`, `n-1`) is code the anchors and definitions weigh.
        .filter(
          (t) =>
            t.source === 'original' &&
            t.term.length >= MIN_COVERAGE_WORD &&
            /^\p{L}[\p{L}\p{N}]*$/u.test(t.term),
        )
        .map((t) => t.term),
    ),
  ];
  if (words.length < 2) return { none: 'fewer than two words' };
  return { words, long };
}

export function planCoverage(
  parsed: ParsedQuery,
  terms: readonly PlannedTerm[],
  collapsingBest: boolean,
  enabled: boolean,
  definedNames = false,
): { plan: QueryPlan['files']['coverage']; reason: string } {
  if (!enabled) return { plan: null, reason: 'word coverage off' };
  if (!collapsingBest) return { plan: null, reason: 'no word coverage (not best-chunk files)' };
  const w = coverageWords(parsed, terms);
  if ('none' in w) return { plan: null, reason: `no word coverage (${w.none})` };
  const { words, long } = w;
  return {
    plan: { words, weight: FILE_COVERAGE_WEIGHT, definedNames },
    reason: `plus ${FILE_COVERAGE_WEIGHT} x the share of ${words.join(', ')}${long ? ' (its first line)' : ''} the file covers (rare words weigh most, its name's${definedNames ? " and its classes' and functions' names'" : ''} twice)`,
  };
}
