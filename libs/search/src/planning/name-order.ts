/**
 * Whether the chunk list orders each file's chunks by the query words their
 * definitions' names hold (definition-names.ts), and with which words: the
 * words file coverage counts (coverage.ts), for the same reason: a long
 * report's words point everywhere, its short first line does not. The file
 * list keeps each file's best chunk and is not reordered. Words the query
 * writes as identifiers are left to the definition boost.
 */
import type { ParsedQuery } from '@codesift/query';
import { coverageWords } from './coverage.js';
import type { PlannedTerm, QueryPlan } from './types.js';

/**
 * Added, within a file, to the score of a chunk whose definition's name
 * holds every query word (a share of it for some words), in the fusion's
 * scale. Chosen by evaluation (docs/EVALUATION.md).
 */
export const NAME_ORDER_WEIGHT = 1;

export function planNameOrder(
  parsed: ParsedQuery,
  terms: readonly PlannedTerm[],
  collapseFiles: boolean,
  enabled: boolean,
  identifiers: readonly string[] = [],
): { plan: QueryPlan['names']; reason: string } {
  if (!enabled) return { plan: null, reason: 'names: off' };
  if (collapseFiles) return { plan: null, reason: 'names: not for files' };
  const w = coverageWords(parsed, terms);
  if ('none' in w) return { plan: null, reason: `names: none (${w.none})` };
  const named = new Set(identifiers.flatMap((i) => i.toLowerCase().split(/[^\p{L}\p{N}_]+/u)));
  // A word the query writes as code (`cse()`) is the definition boost's: the
  // answer is often a helper of the function it names, not that function.
  const words = w.words.filter((x) => !named.has(x));
  if (words.length === 0) return { plan: null, reason: 'names: none (only identifiers)' };
  return {
    plan: { words, weight: NAME_ORDER_WEIGHT },
    reason: `names: within a file, plus ${NAME_ORDER_WEIGHT} x the share of ${words.join(', ')}${w.long ? ' (its first line)' : ''} a chunk's definition name holds (rare words weigh most)`,
  };
}
