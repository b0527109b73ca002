import { STOPWORDS } from '@codesift/analysis';

/**
 * Words that only frame a question ("tell me about", "where can I find")
 * and say nothing about the code sought. Wider than the analyzer's
 * STOPWORDS on purpose: the analyzer must not drop a word that could be an
 * identifier in some repository, while the query side only uses this list
 * to judge how code-like a query is and what to expand, and a word here
 * still reaches BM25 through the analyzer when it is not an analyzer stop
 * word. Lowercase.
 */
export const FILLER_WORDS: ReadonlySet<string> = new Set([
  ...STOPWORDS,
  'a',
  'about',
  'also',
  'am',
  'any',
  'as',
  'being',
  'but',
  'can',
  'could',
  'do',
  'doing',
  'done',
  'each',
  'explain',
  'for',
  'from',
  'give',
  'had',
  'has',
  'have',
  'he',
  'her',
  'here',
  'his',
  'i',
  "i'm",
  'into',
  'is',
  'just',
  'know',
  'let',
  'like',
  'look',
  'me',
  'might',
  'mine',
  'more',
  'most',
  'much',
  'must',
  'my',
  'need',
  'our',
  'please',
  'shall',
  'she',
  'should',
  'show',
  'so',
  'some',
  'such',
  'tell',
  'than',
  'their',
  'them',
  'then',
  'there',
  'they',
  'this',
  'us',
  'very',
  'want',
  'we',
  'when',
  'where',
  'who',
  'whom',
  'whose',
  'why',
  'will',
  'with',
  'would',
  'you',
  'your',
]);

/** True for a filler word, compared lowercase. */
export function isFillerWord(word: string): boolean {
  return FILLER_WORDS.has(word.toLowerCase());
}
