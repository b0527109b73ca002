/**
 * Keyword-side query expansion: the BM25 terms of a parsed query, each
 * with a weight saying how much it should count.
 *
 * Why keyword-only: BM25 matches exact terms, so a user's "function" never
 * finds Go's `func` and "search" never finds `SearchEngine.query` unless
 * the words are added. An embedding already places those words near each
 * other; adding them to the text that is embedded blends the query's
 * meaning and measurably hurt retrieval in a comparable system (amanmcp's
 * ADR-034: 75% -> 50% of its tier-1 queries when the vector side was
 * expanded too). So the vector side always embeds the user's own words
 * (ParsedQuery.text) and only BM25 sees these terms.
 *
 * Sources and default weights (EXPANSION_WEIGHTS):
 * - original 1.0: the analyzed whole of each query term (`ollamaembedder`,
 *   `search`, `src/a/b.ts`, `d40`);
 * - identifier-part 0.5: the other analyzer terms of a term (`ollama`,
 *   `embedder`; `src`, `b.ts`, `b`, `ts` of a path; `40` of `D40`);
 * - case-variant 0.5: an identifier joined in the other conventions, since
 *   the index lowercases, that is concatenated, snake and kebab
 *   (`addEdge` -> `add_edge`, `add-edge`; `max_file_bytes` ->
 *   `maxfilebytes`, `max-file-bytes`);
 * - synonym 0.3 x the weight of the term it expands (0.3 for a typed word,
 *   0.15 for an identifier part), from the synonym table.
 * A term reached several ways keeps its highest weight. Filler words
 * ("tell", "me") are left out entirely; stop words and generic words
 * (NON_EXPANDABLE) are never expanded. Quoted phrases and stack-trace
 * signals give their originals and parts only: a quote asks for exact
 * text, and a pasted trace is already long. Every term comes from
 * `analyze`, so it is spelled exactly as the index spells it.
 */
import { analyze, MAX_QUERY_TERMS, splitIdentifier } from '@codesift/analysis';
import { FILLER_WORDS } from '../parse/words.js';
import type { ParsedQuery, QueryNode, TermNode, TermShape } from '../types.js';
import { DEFAULT_SYNONYMS } from './default-synonyms.js';
import type { SynonymTable } from './synonyms.js';

export type ExpansionSource = 'original' | 'identifier-part' | 'case-variant' | 'synonym';

export interface ExpandedTerm {
  /** An analyzer term, as stored in the BM25 index. */
  term: string;
  /** 0..1: how much a match on this term should count. */
  weight: number;
  source: ExpansionSource;
  /** The query text it came from (a term's value). */
  from: string;
}

export interface ExpansionWeights {
  original: number;
  identifierPart: number;
  caseVariant: number;
  /** Multiplied by the weight of the term being expanded. */
  synonym: number;
}

export const EXPANSION_WEIGHTS: Readonly<ExpansionWeights> = Object.freeze({
  original: 1,
  identifierPart: 0.5,
  caseVariant: 0.5,
  synonym: 0.3,
});

/** Words that are never expanded, whatever a table says: they match too much already. */
export const NON_EXPANDABLE: ReadonlySet<string> = new Set([
  ...FILLER_WORDS,
  'get',
  'set',
  'new',
  'use',
  'used',
  'using',
  'make',
  'code',
  'data',
  'value',
  'values',
  'thing',
  'things',
  'item',
  'object',
  'name',
  'way',
  'work',
]);

/**
 * Identifier shapes whose parts are words: their parts get synonyms and
 * the identifier gets case variants. A path's, a qualified name's or a
 * code's parts are locations and labels (`src`, `walk`, `40`): synonyms of
 * those are noise, and they have no naming convention to vary.
 */
const WORDY_SHAPES: ReadonlySet<TermShape> = new Set<TermShape>([
  'camel',
  'pascal',
  'snake',
  'screaming',
  'kebab',
  'call',
]);

type Mode = 'full' | 'exact';

class Collector {
  private readonly byTerm = new Map<string, ExpandedTerm>();

  add(term: string, weight: number, source: ExpansionSource, from: string): void {
    const prev = this.byTerm.get(term);
    if (prev && prev.weight >= weight) return;
    if (prev) {
      prev.weight = weight;
      prev.source = source;
      prev.from = from;
    } else {
      this.byTerm.set(term, { term, weight, source, from });
    }
  }

  result(limit: number): ExpandedTerm[] {
    // Stable sort: equal weights keep query order.
    return [...this.byTerm.values()].sort((a, b) => b.weight - a.weight).slice(0, limit);
  }
}

function expandTerm(
  t: TermNode,
  mode: Mode,
  table: SynonymTable,
  w: ExpansionWeights,
  out: Collector,
): void {
  if (t.stop) return;
  const from = t.value;
  const synonyms = (term: string, base: number): void => {
    if (mode !== 'full' || NON_EXPANDABLE.has(term)) return;
    const list = table[term];
    if (!list) return;
    for (const s of list) {
      const n = analyze(s)[0];
      if (n !== undefined && n !== term) out.add(n, base * w.synonym, 'synonym', from);
    }
  };
  // Multi-word codes (`30 CFR 75.1725`) are one node but several index terms.
  for (const piece of t.value.split(' ')) {
    const terms = analyze(piece);
    const whole = terms[0];
    if (whole === undefined) continue;
    out.add(whole, w.original, 'original', from);
    for (let k = 1; k < terms.length; k++) {
      out.add(terms[k]!, w.identifierPart, 'identifier-part', from);
    }
    const isSingleWord = terms.length === 1;
    if (isSingleWord) synonyms(whole, w.original);
    if (!isSingleWord && WORDY_SHAPES.has(t.shape)) {
      for (let k = 1; k < terms.length; k++) synonyms(terms[k]!, w.identifierPart);
    }
    if (mode === 'full' && WORDY_SHAPES.has(t.shape) && !piece.includes('.')) {
      const parts = splitIdentifier(piece).filter((p) => p !== '');
      if (parts.length >= 2) {
        for (const joined of [parts.join(''), parts.join('_'), parts.join('-')]) {
          const n = analyze(joined)[0];
          if (n !== undefined && n !== whole) out.add(n, w.caseVariant, 'case-variant', from);
        }
      }
    }
  }
}

/**
 * Expands each distinct (mode, shape, value) once. A pasted report repeats
 * the same frames and words many times; a repeat adds exactly what its
 * first occurrence added, with the same weights, and the collector keeps a
 * term's highest weight, so it can change nothing.
 */
class OnceExpander {
  private readonly done = new Set<string>();

  constructor(
    private readonly table: SynonymTable,
    private readonly w: ExpansionWeights,
    private readonly out: Collector,
  ) {}

  term(t: TermNode, mode: Mode): void {
    if (t.stop) return;
    const key = `${mode}\u0000${t.shape}\u0000${t.value}`;
    if (this.done.has(key)) return;
    this.done.add(key);
    expandTerm(t, mode, this.table, this.w, this.out);
  }
}

function expandNode(n: QueryNode, expander: OnceExpander): void {
  switch (n.kind) {
    case 'term':
      expander.term(n, 'full');
      break;
    case 'phrase':
    case 'trace':
      for (const t of n.terms) expander.term(t, 'exact');
      break;
    case 'filter':
      break;
  }
}

/**
 * The weighted BM25 terms of `query` (see the module comment), highest
 * weight first, at most MAX_QUERY_TERMS of them.
 */
export function expandForKeywords(
  query: ParsedQuery,
  table: SynonymTable = DEFAULT_SYNONYMS,
  weights: Partial<ExpansionWeights> = {},
): ExpandedTerm[] {
  const w: ExpansionWeights = { ...EXPANSION_WEIGHTS, ...weights };
  const out = new Collector();
  const expander = new OnceExpander(table, w, out);
  for (const n of query.nodes) expandNode(n, expander);
  return out.result(MAX_QUERY_TERMS);
}
