/**
 * The test words that name the indexed repository's own code.
 *
 * Focus inference reads "test", "fixture" or "mock" in a question as asking
 * for tests, and demotes the implementation. In a repository whose product
 * is testing (a test runner, an assertion or mocking library) those words
 * are the domain's vocabulary: a pytest issue says "test" and "pytest"
 * about the runner's own code, whose modules live under `_pytest/`. The
 * repository tells which case it is: when a large share of its non-test
 * source files carry the word in their paths, the word names
 * implementation, and it is no cue there. Read from the manifest's paths,
 * once per index version, and only for a query that holds a test word.
 */
import { detectLanguage, isTestPath, LANGUAGES } from '@codesift/analysis';
import { TEST_WORDS } from '@codesift/query';
import { readIndexPaths } from './index-paths.js';
import { inDocTree } from './planning/documentation.js';
import type { SearchIndex } from './search-index.js';

/**
 * Share of the non-test source files whose path must carry a test word for
 * it to count as the repository's own. A project with one `testing.py`
 * helper module among many stays below it; a test tool whose package
 * directory is named after testing (`_pytest/`, `jest-*`, `org/junit/`) is
 * far above.
 */
export const OWN_TEST_WORD_SHARE = 0.25;
/** Fewer non-test source files than this tell nothing either way. */
const MIN_SOURCE_FILES = 8;

const TEST_WORD_RE = new RegExp(`\\b(?:${[...TEST_WORDS].join('|')})\\b`, 'i');

/** Whether a query's text holds a test word at all (cheap, before reading any path). */
export function mentionsTestWord(text: string): boolean {
  return TEST_WORD_RE.test(text);
}

/** tests, tested, testing -> test; stubbed -> stub; fixtures -> fixture. */
export function testWordStem(word: string): string {
  let w = word;
  if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2);
  else if (w.endsWith('s') && w.length > 3) w = w.slice(0, -1);
  const last = w.charAt(w.length - 1);
  if (last === w.charAt(w.length - 2) && !'aeiou'.includes(last)) w = w.slice(0, -1);
  return w;
}

/** A path's lowercase words: segments split at punctuation and camelCase. */
function pathTokens(path: string): string[] {
  return path
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t !== '');
}

/** Source code in a language with test conventions, outside tests, docs and examples. */
function isImplementationSource(path: string): boolean {
  const language = detectLanguage(path);
  if (LANGUAGES[language]?.testFiles === undefined) return false;
  return !isTestPath(path, language) && !inDocTree(path);
}

/**
 * The words of TEST_WORDS that this repository's paths use for its own code:
 * a path word equal to, starting with or ending in the test word's stem
 * (`_pytest` and `unittest.py` carry "test") in at least OWN_TEST_WORD_SHARE
 * of the non-test source files.
 */
export function ownTestWords(paths: Iterable<string>): Set<string> {
  const stems = new Map<string, string[]>();
  for (const w of TEST_WORDS) {
    const s = testWordStem(w);
    stems.set(s, [...(stems.get(s) ?? []), w]);
  }
  const carrying = new Map<string, number>();
  let sources = 0;
  for (const path of paths) {
    if (!isImplementationSource(path)) continue;
    sources++;
    const tokens = pathTokens(path);
    for (const stem of stems.keys()) {
      if (tokens.some((t) => t.startsWith(stem) || t.endsWith(stem))) {
        carrying.set(stem, (carrying.get(stem) ?? 0) + 1);
      }
    }
  }
  const own = new Set<string>();
  if (sources < MIN_SOURCE_FILES) return own;
  for (const [stem, n] of carrying) {
    if (n / sources >= OWN_TEST_WORD_SHARE) for (const w of stems.get(stem)!) own.add(w);
  }
  return own;
}

/** ownTestWords over the index's paths; none when the store cannot list them (every test word a cue, as before). */
export async function readOwnTestWords(
  index: Pick<SearchIndex, 'manifest'>,
): Promise<ReadonlySet<string>> {
  const paths = await readIndexPaths(index);
  return paths === null ? new Set() : ownTestWords(paths);
}
