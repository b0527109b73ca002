/**
 * Files by the query words they cover, for short queries collapsed to
 * files. A title or a commit subject names a few things ("blueprint name
 * contains a dot"); the file that holds the answer usually holds most of
 * them, spread over several of its chunks and its path, while the best
 * single chunk elsewhere may hold one common word many times. Scoring a
 * file by its best chunk alone cannot see that spread; adding a decayed
 * share of its next chunks' scores (collapse.ts) rewards a file for
 * repeating the same word and cost the natural-language class of the
 * dogfood set (docs/EVALUATION.md). Coverage counts each query word once
 * per file, wherever the file holds it (a candidate chunk's text or the
 * path), and weighs it by how few candidate files hold it, so a word every
 * file has adds nothing and the one rare word of the title decides.
 *
 * Pure: the candidates' contents come in (read by evidence.ts).
 */
import { isTestPath } from '@codesift/analysis';
import { collapseByPath } from './collapse.js';
import { addDefinedWords, type SymbolOf } from './defined-names.js';

/** Finds one query word in texts (see wordMatcher). */
export interface WordMatcher {
  /** Whether the word is in `text`; `lower` is `text.toLowerCase()` when the caller has it. */
  test(text: string, lower?: string): boolean;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const LOWER_OR_DIGIT = /[\p{Ll}\p{N}]/u;
const UPPER = /\p{Lu}/u;

/**
 * A query word as a whole word of code or prose, in any inflection: after a
 * non-letter or as a camelCase hump (`Subset` in `isSubset`), capitalized
 * or not (all capitals is another name), ending where the word does (`mod` in `Mod`, `mods`, `mod_x`,
 * never in `module`). Inflections the analyzer keeps apart share a stem:
 * `merging` finds `merge` and `merged`, `throttled` finds `throttle`,
 * `overlapping` finds `overlap`, `dependencies` finds `dependency`.
 *
 * The stem is found with indexOf in the lower-cased text and only its
 * boundaries are checked by a sticky expression: a regular expression with
 * a look-behind, tried at every offset of 150 chunks, made file lists 2.5x
 * slower.
 */
export function wordMatcher(word: string): WordMatcher {
  const w = word.toLowerCase();
  // `dependency`, `dependencies`, `queried`: one stem, `dependenc`, `quer`.
  const y = /^(\p{L}{3,}?)(?:y|ies|ied)$/u.exec(w);
  const cut = y ? null : /^(\p{L}{4,}?)(?:ing|ed|es|s)$/u.exec(w);
  let stem = y ? y[1]! : cut ? cut[1]! : w;
  // A cut stem may have lost an `e` (`merg`, `throttl`); a whole word keeps its own (`mod` is not `mode`).
  const endings = y ? 'y|ys|ies|ied' : cut ? 'e|es|ed|ing|s' : 'es|ed|ing|s';
  // `overlapping` and `getting` double the consonant their stem ends in: `overlap`, `get`.
  let doubled = '';
  if (cut && /([bdgmnprt])\1$/u.test(stem)) {
    doubled = `${stem.at(-1)}?`;
    stem = stem.slice(0, -1);
  }
  // What may follow the stem: an ending, then no lowercase letter or digit (`modSwitch` ends `mod`).
  const tail = new RegExp(`${doubled}(?:${endings})?(?![\\p{Ll}\\p{N}])`, 'uy');
  const rest = stem.slice(1);
  // The word as written in code or prose: its first letter in either case, the rest lower case
  // (`Blueprint`, `blueprint`; not `BLUEPRINT`, a constant whose words are not the query's).
  const startsWord = (text: string, at: number): boolean => {
    if (!text.startsWith(rest, at + 1)) return false;
    if (at === 0) return true;
    const before = text[at - 1]!;
    if (!LETTER_OR_DIGIT.test(before)) return true;
    return LOWER_OR_DIGIT.test(before) && UPPER.test(text[at]!);
  };
  return {
    test(text, lower = text.toLowerCase()) {
      for (let at = lower.indexOf(stem); at >= 0; at = lower.indexOf(stem, at + 1)) {
        if (!startsWord(text, at)) continue;
        tail.lastIndex = at + stem.length;
        if (tail.test(text)) return true;
      }
      return false;
    },
  };
}

export interface CoverageItem {
  id: string;
  path: string;
  score: number;
  /** The file's demotion (tests, docs): a demoted file gets no coverage. */
  focusMultiplier: number;
  /** The store's language, when known (test files are recognized by path and language). */
  language?: string;
}

export interface CoverageOptions {
  /** The query's own words (no synonyms, no identifier parts). */
  words: readonly string[];
  /** Added to a file covering every word (in the fusion's scale). */
  weight: number;
  /**
   * A word that is the whole name of one of the file's candidate
   * definitions counts twice, as a word of the file's name does
   * (defined-names.ts).
   */
  definedNames?: boolean;
}

/**
 * Each file's coverage bonus: `weight` x the share of the query's words the
 * file covers, each word weighted by ln(files / files holding it) over the
 * candidate files; a test or a file out of focus gets none (earnsCoverage).
 * A chunk's text counts when `contents` has it (the candidates evidence.ts
 * read); the path always counts, and a word the file's name holds counts
 * twice: a module named by the title's word is what the title is about
 * (`blueprint` and `blueprints.py`), so a file covering every word and named
 * by all of them gets 2 x `weight`; with `definedNames`, so does a word one of
 * its candidate definitions is named (`symbolOf`). Files in first-seen order.
 */
export function coverageBonuses<T extends CoverageItem>(
  ranked: readonly T[],
  contents: ReadonlyMap<string, string>,
  options: CoverageOptions,
  symbolOf: SymbolOf = () => undefined,
): Map<string, number> {
  const words = [...new Set(options.words.map((w) => w.toLowerCase()))];
  const matchers = words.map(wordMatcher);
  const files = new Map<string, { best: T; held: Set<number>; named: Set<number> }>();
  for (const item of ranked) {
    let f = files.get(item.path);
    if (f === undefined) {
      f = { best: item, held: new Set(), named: new Set() };
      files.set(item.path, f);
      hold(f.held, item.path, matchers);
      // The words the file's own name holds (`blueprints.py`, `MethodSpec.java`): they count twice.
      hold(f.named, item.path.slice(item.path.lastIndexOf('/') + 1), matchers);
    }
    const content = contents.get(item.id);
    if (content !== undefined) hold(f.held, content, matchers);
    const definition = options.definedNames ? symbolOf(item.id) : undefined;
    if (definition !== undefined) addDefinedWords(f.named, definition, words);
  }
  const holders = matchers.map(() => 0);
  for (const f of files.values()) for (const i of f.held) holders[i]!++;
  // ln(files / holders): a word every candidate file holds tells them apart no more than none.
  const weights = holders.map((n) => (n === 0 ? 0 : Math.log(files.size / n)));
  const total = weights.reduce((a, b) => a + b, 0);
  const out = new Map<string, number>();
  for (const [path, f] of files) {
    let share = 0;
    for (const i of f.held) share += weights[i]!;
    for (const i of f.named) share += weights[i]!;
    out.set(path, total > 0 && earnsCoverage(f.best) ? (options.weight * share) / total : 0);
  }
  return out;
}

/**
 * Collapses a ranking (best first) to files, each at its best chunk's score
 * plus the file's coverage bonus (coverageBonuses). Each file keeps its best
 * chunk as the result, with the new score; ties keep the input order.
 */
export function collapseByCoverage<T extends CoverageItem>(
  ranked: readonly T[],
  contents: ReadonlyMap<string, string>,
  options: CoverageOptions,
  symbolOf?: SymbolOf,
): T[] {
  const bonuses = coverageBonuses(ranked, contents, options, symbolOf);
  return (
    collapseByPath(ranked)
      .map((b) => ({ ...b, score: b.score + bonuses.get(b.path)! }))
      // Stable: ties keep the input order.
      .sort((a, b) => b.score - a.score)
  );
}

/**
 * Coverage is evidence of where code does what the words say. A file out of
 * focus (prose docs, an example, a changelog) holds any sentence's words,
 * and a test restates the words of the code it tests, even when the
 * question asks for tests: neither gets coverage, though both count among
 * the files that hold a word.
 */
function earnsCoverage(item: CoverageItem): boolean {
  return item.focusMultiplier >= 1 && !isTestPath(item.path, item.language);
}

/** Adds to `held` the index of each word, not held yet, that occurs in `text`. */
function hold(held: Set<number>, text: string, matchers: readonly WordMatcher[]): void {
  if (held.size === matchers.length) return;
  const lower = text.toLowerCase();
  matchers.forEach((m, i) => {
    if (!held.has(i) && m.test(text, lower)) held.add(i);
  });
}
