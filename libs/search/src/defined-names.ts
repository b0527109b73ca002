/**
 * The query words a file's definitions are named (`Posify` and `def
 * posify`, `Choice` and `class Choice`, `Rational` and `Rational.__new__`):
 * a title names the class or function it is about as it names a module,
 * by a plain word, which file coverage (file-coverage.ts) then counts as it
 * counts a word of the file's own name.
 *
 * Pure: the candidates' symbol paths come in (the keyword side's hits carry them).
 */

/**
 * A candidate's definition as the keyword side reports it: its symbol path
 * (`Rational.__new__`, `Map::remove_entry`; null when the chunk defines
 * nothing) and its kind; undefined for a chunk the keyword side did not find.
 */
export type SymbolOf = (id: string) => { symbol: string | null; kind: string } | undefined;

/** Symbol path separators: `a.b`, `a::b`, `A#b`. */
const SEGMENTS = /::|\.|#/u;
/** A name of one word as code writes it: `posify`, `Choice`, `_collect` (not `is_zero`, `ColInsert`, `HTTP`, `__add__`). */
const ONE_WORD_NAME = /^_?(\p{L}\p{Ll}+)$/u;

/**
 * Adds to `named` the index of each of `words` (lower case) that is the
 * whole name of a segment of `symbol`, compared exactly: "renderers" or
 * "requests" speak of many things, not of the `Renderer` or the `Request`
 * class. A method's own name is left out: it is a verb its class answers
 * to (`Mux.Use`, `Set.add`), which a commit subject or a title starts with;
 * the class it belongs to is a name. A name of several words (`is_zero`) is
 * no one word's, a Markdown section heading is prose, and a test's names
 * restate the words of the code it tests.
 */
export function addDefinedWords(
  named: Set<number>,
  definition: { symbol: string | null; kind: string },
  words: readonly string[],
): void {
  const { symbol, kind } = definition;
  if (symbol === null || named.size === words.length || kind === 'section') return;
  const segments = symbol.split(SEGMENTS);
  if (kind === 'method') segments.pop();
  for (const segment of segments) {
    const m = ONE_WORD_NAME.exec(segment);
    if (m === null || /^test/iu.test(m[1]!)) continue;
    const name = m[1]!.toLowerCase();
    words.forEach((w, i) => {
      if (w === name) named.add(i);
    });
  }
}
