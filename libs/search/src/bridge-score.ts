/**
 * The offline vocabulary bridge's ranking (pure, no I/O): which of the
 * vocabulary slice's identifiers (symbols whose name parts or doc words
 * match the query's stems) stand for the question, judged by the
 * repository's own statistics:
 *
 * - name-part overlap: query stems among the identifier's name parts
 *   (NAME_POINT each);
 * - doc-comment words: query stems among its doc comment's words, not
 *   already counted as name parts (DOC_POINT each);
 * - co-occurrence: for each query word not already counted as a name part
 *   or doc word, the normalized PMI of the word and the identifier over the index's
 *   chunks (log(c·N / (df_w·df_i)) / -log(c / N), in -1..1), counted when
 *   at least MIN_NPMI (the word occurs with the identifier more often than
 *   chance) and when they share at least MIN_JOINT chunks (one shared chunk
 *   is as often chance; the index-time table keeps only such pairs, see
 *   @codesift/stores bridge-assoc.ts, so both ways of counting agree).
 *
 * An identifier must share a name part with the query and relate to at
 * least MIN_COVERED of its words (one shared word is what the keyword side
 * already matches); co-occurrence counts from MIN_NPMI up. It must occur
 * in the index, and in at most MAX_TERM_SHARE of its chunks (a name used
 * everywhere says nothing). The best MAX_BRIDGE_TERMS become OR terms at
 * BRIDGE_TERM_WEIGHT x their score relative to the best, at least half of
 * it: below the user's words (1), identifier parts (0.5) and the LLM
 * rewrite's terms (0.4).
 *
 * Tuned on the evaluation sets: MAX_BRIDGE_TERMS and BRIDGE_TERM_WEIGHT
 * only; the points and thresholds are set by reasoning, not searched.
 */
import { wordStems } from '@codesift/analysis';
import {
  ASSOC_MAX_TERM_SHARE,
  ASSOC_MIN_JOINT,
  ASSOC_MIN_NPMI,
  type Cooccurrence,
  normalizedPmi,
} from '@codesift/stores';
import { LruCache } from './lru.js';

/** Identifiers the bridge adds at most. */
export const MAX_BRIDGE_TERMS = 3;
/** Keyword weight of the best bridged identifier; the others scale down with their score. */
export const BRIDGE_TERM_WEIGHT = 0.3;
/** Score of one query stem among the identifier's name parts. */
export const NAME_POINT = 1;
/** Score of one query stem among its doc comment's words. */
export const DOC_POINT = 0.5;
/** Query words (name, doc or co-occurrence) an identifier must relate to. */
export const MIN_COVERED = 2;
/** An identifier in more than this share of the chunks is not bridged. */
export const MAX_TERM_SHARE = ASSOC_MAX_TERM_SHARE;
/** A normalized PMI below this is chance-level co-occurrence, not counted. */
export const MIN_NPMI = ASSOC_MIN_NPMI;
/** Chunks a word and the identifier must share to count. */
export const MIN_JOINT = ASSOC_MIN_JOINT;
/** What an identifier must look like (a doc line some parsers report as a name is not one). */
const IDENTIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

export interface BridgeCandidate {
  /** The identifier as defined. */
  name: string;
  /** Its doc comment ('' when none). */
  doc: string;
  /** The analyzer term of the whole identifier: what is searched, and counted in `counts`. */
  term: string;
}

export interface BridgeQuery {
  /** The query's word stems (wordStems), matched against name parts and doc words. */
  stems: readonly string[];
  /** Analyzer terms of the query's words, as `counts` holds them. */
  words: readonly string[];
}

export interface BridgeTerm {
  /** The identifier. */
  name: string;
  /** Its analyzer term, searched as an OR term. */
  term: string;
  weight: number;
  score: number;
  /** What matched, in words: name parts, doc words, co-occurring words. */
  why: string;
}

interface Scored extends BridgeTerm {
  /** Query words it relates to. */
  covered: number;
  /** Whether one of them is a name part. */
  named: boolean;
}

/**
 * The chosen identifiers, best first. `exclude`: terms already searched
 * (the user's own words), never bridged again. `counts` null: no
 * co-occurrence statistics (name and doc overlap only).
 */
export function rankBridgeTerms(
  query: BridgeQuery,
  candidates: readonly BridgeCandidate[],
  counts: Cooccurrence | null,
  exclude: ReadonlySet<string> = new Set(),
): BridgeTerm[] {
  const stems = new Set(query.stems);
  // Each word's stems once per query, not once per candidate.
  const words = query.words.map((w) => ({ w, stems: wordStems(w) }));
  const seen = new Set<string>();
  const scored: Scored[] = [];
  for (const c of candidates) {
    if (!IDENTIFIER.test(c.name) || exclude.has(c.term) || seen.has(c.term)) continue;
    seen.add(c.term);
    const df = counts?.df[c.term];
    if (counts && (df === undefined || df === 0 || df > MAX_TERM_SHARE * counts.chunks)) continue;
    const s = scoreCandidate(c, stems, words, counts);
    if (s.named && s.covered >= MIN_COVERED) scored.push(s);
  }
  scored.sort(
    (a, b) => b.score - a.score || a.name.length - b.name.length || a.name.localeCompare(b.name),
  );
  const chosen = scored.slice(0, MAX_BRIDGE_TERMS);
  const top = chosen[0]?.score ?? 0;
  return chosen.map(({ covered: _covered, named: _named, ...t }) => ({
    ...t,
    score: round(t.score),
    weight: round(BRIDGE_TERM_WEIGHT * Math.max(0.5, t.score / top)),
  }));
}

function scoreCandidate(
  c: BridgeCandidate,
  stems: ReadonlySet<string>,
  words: readonly { w: string; stems: string[] }[],
  counts: Cooccurrence | null,
): Scored {
  const nameParts = new Set(stemsOf(c.name));
  const nameHits = [...nameParts].filter((s) => stems.has(s));
  const docHits = stemsOf(c.doc).filter((s) => stems.has(s) && !nameParts.has(s));
  const covered = new Set([...nameHits, ...docHits]);
  let assoc = 0;
  const together: string[] = [];
  const joint = counts?.joint[c.term];
  if (counts && joint) {
    const n = counts.chunks;
    const dfTerm = counts.df[c.term] ?? 0;
    for (const { w, stems: wStems } of words) {
      // A word already counted as a name part or doc word is not counted again.
      if (wStems.some((s) => covered.has(s) || nameParts.has(s))) continue;
      const both = joint[w] ?? 0;
      const dfWord = counts.df[w] ?? 0;
      if (both < MIN_JOINT || dfWord === 0 || dfTerm === 0 || both >= n) continue;
      const npmi = normalizedPmi(both, dfWord, dfTerm, n);
      if (!(npmi >= MIN_NPMI)) continue;
      assoc += npmi;
      together.push(`${w} ${round(npmi)}`);
      for (const s of wStems) covered.add(s);
      if (wStems.length === 0) covered.add(w);
    }
  }
  const score = NAME_POINT * nameHits.length + DOC_POINT * docHits.length + assoc;
  const why = [
    nameHits.length > 0 ? `name ${nameHits.join(' ')}` : '',
    docHits.length > 0 ? `doc ${docHits.join(' ')}` : '',
    together.length > 0 ? `with ${together.join(', ')}` : '',
  ]
    .filter((x) => x !== '')
    .join('; ');
  return {
    name: c.name,
    term: c.term,
    weight: 0,
    score,
    why,
    covered: covered.size,
    named: nameHits.length > 0,
  };
}

/**
 * The stems of candidate names and doc comments: the same few hundred
 * symbols make the slices of most queries, and stemming their docs again
 * for each was a fifth of the bridge's time.
 */
const stemCache = new LruCache<string[]>(4096);
function stemsOf(text: string): string[] {
  let stems = stemCache.get(text);
  if (!stems) {
    stems = wordStems(text);
    stemCache.set(text, stems);
  }
  return stems;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
