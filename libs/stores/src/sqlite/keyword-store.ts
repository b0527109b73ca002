/**
 * The keyword side: chunk rows, their FTS5 postings, BM25 search and chunk
 * reads. Text is analyzed in JS (@codesift/analysis) and stored
 * space-joined, so FTS5 only splits on spaces. A search runs the terms
 * keyword-plan.ts keeps and scores only the rows that can reach its top k
 * (keyword-prune.ts) and, with a path-prefix filter, that the filter keeps
 * (keyword-scope.ts): the same answer as scoring every matching row.
 */
import { analyze } from '@codesift/analysis';
import type { Chunk, UnitKind } from '@codesift/core';
import { groupByBoost, normalizeTerms, type WeightedTerm } from '../fts-query.js';
import type { KeywordDoc, KeywordHit, KeywordQuery } from '../ports.js';
import { type BridgeAssoc, CHUNK_TEXT, type ChunkText, chunkColumns } from './bridge-assoc.js';
import { FilterProbes } from './filter-probe.js';
import { planTerms, postingsOf, type TermPlan } from './keyword-plan.js';
import { probeTerms, requiredTerms } from './keyword-prune.js';
import { SCOPE_MAX_SHARE, scopeCondition } from './keyword-scope.js';
import { chunked, filterSql, IN_BATCH, type SqliteContext, sqlList } from './sql.js';
import { hasFilter } from './store-filter.js';
import { TermStats } from './term-stats.js';

/**
 * bm25() column weights, in column order code, symbol, path, context.
 * A name match (symbol/signature) is the strongest signal, a path match
 * next; generated context is prose about the code, so it counts half of
 * the code itself. FTS5 multiplies hit counts by these before BM25's term
 * frequency saturation, so the effective ratio is smaller than the weights.
 */
export const BM25_WEIGHTS = { code: 1, symbol: 3, path: 2, context: 0.5 } as const;

interface ChunkRow {
  seq: number;
  id: string;
  path: string;
  language: string;
  start_line: number;
  end_line: number;
  symbol: string | null;
  kind: string;
  content: string;
  context: string | null;
  signature: string | null;
  doc: string | null;
  /** Absent (not only null) in an index opened read-only that predates the column. */
  context_source?: string | null;
  context_fallback?: string | null;
}

/** What the chunks table stores: a KeywordDoc or a full Chunk (which adds `doc`, optional `context`). */
export type StoredChunk = Omit<KeywordDoc, 'context'> & {
  context?: string | null | undefined;
  doc?: string | undefined;
  contextSource?: string | undefined;
  contextFallback?: string | undefined;
};

function rowToChunk(r: ChunkRow): Chunk {
  const c: Chunk = {
    id: r.id,
    path: r.path,
    language: r.language,
    startLine: r.start_line,
    endLine: r.end_line,
    symbol: r.symbol,
    kind: r.kind as UnitKind,
    content: r.content,
  };
  if (r.signature !== null) c.signature = r.signature;
  if (r.doc !== null) c.doc = r.doc;
  if (r.context !== null) c.context = r.context;
  if (r.context_source === 'llm' || r.context_source === 'pattern') {
    c.contextSource = r.context_source;
  }
  if (r.context_fallback) c.contextFallback = r.context_fallback;
  return c;
}

/** What a keyword hit reads from the chunk row, and its score. */
const HIT_COLUMNS =
  'c.id, c.path, c.start_line, c.end_line, c.symbol, c.kind, c.language, s.score AS score';
type HitRow = Omit<ChunkRow, 'content'> & { score: number };

/** A path-prefix scope read before scoring (keyword-scope.ts). */
type Scope = { where: string; params: string[] };
/** Which rows a search keeps: the filter, tested on the result, and the scope, before scoring. */
interface RowFilter {
  filter: KeywordQuery['filter'];
  scope: Scope | null;
}

/** A removed chunk's seq and what its terms are recomputed from (bridge-assoc.ts). */
const REMOVED_COLUMNS = `seq, ${CHUNK_TEXT}`;

/**
 * Rows probed per wanted row before a filter falls back to joining every
 * scored row (filter-probe.ts): at 2, a filter keeping half the rows or more
 * usually finds its answer among them.
 */
const FILTER_PROBE_FACTOR = 2;
/** And at least this many, so that a search for one or two rows does not come back short by chance. */
const FILTER_PROBE_MIN = 20;

export class KeywordStore {
  readonly stats: TermStats;
  /** Skip rows that cannot reach the top (keyword-prune.ts) or pass the filter (keyword-scope.ts); off: score every matching row. */
  prune = true;
  /** Searches answered pruned since the store opened (tests and benchmarks check it engages). */
  prunedSearches = 0;
  /** Searches that scored their path-prefix scope only (keyword-scope.ts), likewise. */
  scopedSearches = 0;
  /** Filtered searches answered from their probe (filter-probe.ts), and probes that came back short. */
  probedFilters = 0;
  shortProbes = 0;
  private readonly probes = new FilterProbes();
  private lastPath = '';
  private lastPathTerms: string[] = [];

  /** Told of every chunk written and removed (the bridge's index-time counts); set by the index. */
  assoc: BridgeAssoc | null = null;

  constructor(private readonly ctx: SqliteContext) {
    this.stats = new TermStats(ctx);
  }

  insert(doc: StoredChunk): void {
    const old = this.ctx.stmt(`SELECT ${REMOVED_COLUMNS} FROM chunks WHERE id = ?`).get(doc.id) as
      | (ChunkText & { seq: number })
      | undefined;
    if (old) {
      this.assoc?.removing([old]);
      this.ctx.stmt('DELETE FROM chunks_fts WHERE rowid = ?').run(old.seq);
      this.ctx.stmt('DELETE FROM chunks WHERE seq = ?').run(old.seq);
    }
    const info = this.ctx
      .stmt(
        `INSERT INTO chunks(id, path, language, start_line, end_line, symbol, kind, content, context, signature, doc, context_source, context_fallback)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        doc.id,
        doc.path,
        doc.language,
        doc.startLine,
        doc.endLine,
        doc.symbol,
        doc.kind,
        doc.content,
        doc.context ?? null,
        doc.signature ?? null,
        doc.doc ?? null,
        doc.contextSource ?? null,
        doc.contextFallback ?? null,
      );
    const columns = chunkColumns(doc, this.analyzedPath(doc.path));
    this.ctx
      .stmt('INSERT INTO chunks_fts(rowid, code, symbol, path, context) VALUES (?, ?, ?, ?, ?)')
      .run(info.lastInsertRowid, ...columns.map((c) => c.join(' ')));
    this.assoc?.inserted(Number(info.lastInsertRowid), columns);
  }

  /** Every chunk of a file shares its path; analyze it once per run of chunks. */
  private analyzedPath(p: string): string[] {
    if (p !== this.lastPath) {
      this.lastPath = p;
      this.lastPathTerms = analyze(p);
    }
    return this.lastPathTerms;
  }

  upsert(docs: readonly StoredChunk[]): void {
    for (const d of docs) this.insert(d);
  }

  deleteByPaths(paths: readonly string[]): void {
    for (const p of paths) {
      const rows = this.ctx
        .stmt(`SELECT ${this.assoc ? REMOVED_COLUMNS : 'seq'} FROM chunks WHERE path = ?`)
        .all(p) as (ChunkText & { seq: number })[];
      this.assoc?.removing(rows);
      for (const r of rows) this.ctx.stmt('DELETE FROM chunks_fts WHERE rowid = ?').run(r.seq);
      this.ctx.stmt('DELETE FROM chunks WHERE path = ?').run(p);
    }
  }

  /**
   * Many FTS segments make every term lookup seek in each of them; after an
   * index run, merging them into one (FTS5 'optimize', ~0.4 s at 50k chunks)
   * roughly halves per-term costs. Cheap enough to run when segments pile up.
   */
  compact(maxSegments: number): boolean {
    const { n } = this.ctx.stmt('SELECT count(DISTINCT segid) AS n FROM chunks_fts_idx').get() as {
      n: number;
    };
    if (n <= maxSegments) return false;
    this.ctx.stmt("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')").run();
    return true;
  }

  /** The terms a query would run (see keyword-plan.ts). */
  plan(q: Pick<KeywordQuery, 'terms'>): TermPlan {
    return this.planned(q).plan;
  }

  /** The plan, with the document frequencies and chunk count it was made from (null: one term, none looked up). */
  private planned(q: Pick<KeywordQuery, 'terms'>): {
    plan: TermPlan;
    stats: { df: ReadonlyMap<string, number>; total: number } | null;
  } {
    const terms = normalizeTerms(q.terms);
    if (terms.length <= 1) {
      // One term needs no choosing; skip the document-frequency lookups.
      return { plan: { terms, absent: [], common: [], overBudget: [], postings: 0 }, stats: null };
    }
    const df = this.stats.lookup(terms.map((t) => t.term));
    const total = this.stats.total();
    return { plan: planTerms(terms, df, total), stats: { df, total } };
  }

  search(q: KeywordQuery): KeywordHit[] {
    const limit = Math.floor(q.limit);
    if (!(limit > 0)) return [];
    const { plan, stats } = this.planned(q);
    const terms = plan.terms;
    if (terms.length === 0) return [];
    const scope = this.prune ? this.scope(q.filter, terms, stats) : null;
    if (scope !== null) this.scopedSearches++;
    const required =
      this.prune && stats !== null
        ? this.requiredTerms(terms, stats, limit, { filter: q.filter, scope })
        : null;
    if (required !== null) this.prunedSearches++;
    const rows = this.scored(
      terms,
      limit,
      { filter: q.filter, scope },
      required,
      HIT_COLUMNS,
    ) as HitRow[];
    return rows.map((r) => ({
      id: r.id,
      path: r.path,
      startLine: r.start_line,
      endLine: r.end_line,
      symbol: r.symbol,
      kind: r.kind,
      language: r.language,
      score: r.score,
    }));
  }

  /**
   * The terms a row must hold one of to reach the top `limit`, from a probe
   * of the leading terms (keyword-prune.ts); null: score every matching row.
   */
  private requiredTerms(
    terms: readonly WeightedTerm[],
    { df, total }: { df: ReadonlyMap<string, number>; total: number },
    limit: number,
    rows: RowFilter,
  ): WeightedTerm[] | null {
    const probe = probeTerms(terms, df, total, limit);
    if (probe === null) return null;
    const scores = this.scored(probe, limit, rows, null, 's.score') as { score: number }[];
    if (scores.length < limit) return null;
    return requiredTerms(terms, df, total, scores[limit - 1]!.score);
  }

  /**
   * The include prefixes of `filter` as a scope read before scoring
   * (keyword-scope.ts), when they hold at most SCOPE_MAX_SHARE of the
   * query's postings; null: test the filter after scoring only.
   */
  private scope(
    filter: KeywordQuery['filter'],
    terms: readonly WeightedTerm[],
    stats: { df: ReadonlyMap<string, number> } | null,
  ): Scope | null {
    const scope = scopeCondition(filter);
    if (scope === null) return null;
    // A one-term plan looked up no frequencies: ask for its one.
    const df = stats?.df ?? this.stats.lookup(terms.map((t) => t.term));
    const cap = Math.floor(postingsOf(terms, df) * SCOPE_MAX_SHARE);
    if (cap < 1) return null;
    const { n } = this.ctx
      .stmt(`SELECT count(*) AS n FROM (SELECT 1 FROM chunks WHERE ${scope.where} LIMIT ?)`)
      .get(...scope.params, cap + 1) as { n: number };
    return n <= cap ? scope : null;
  }

  /**
   * The top `limit` rows by boosted BM25 over `terms`, best first (ties by
   * seq), with `columns` of the joined chunk row `c` and the score `s.score`.
   * With `required`, only rows holding one of those terms are scored.
   */
  private scored(
    terms: readonly WeightedTerm[],
    limit: number,
    { filter, scope }: RowFilter,
    required: readonly WeightedTerm[] | null,
    columns: string,
  ): unknown[] {
    const groups = groupByBoost(terms);
    const w = BM25_WEIGHTS;
    const bm25 = `bm25(chunks_fts, ${w.code}, ${w.symbol}, ${w.path}, ${w.context})`;
    const params: unknown[] = [];
    // The rows holding a required term and the rows in the filter's scope,
    // each found once. `+rowid` keeps the tests out of FTS5's own plan, which
    // would run the MATCH again per row.
    const ctes: string[] = [];
    let holds = '';
    if (required !== null) {
      ctes.push('req(seq) AS MATERIALIZED (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?)');
      params.push(groupByBoost(required.map((t) => ({ term: t.term, boost: 1 })))[0]!.match);
      holds += ' AND +rowid IN req';
    }
    if (scope !== null) {
      ctes.push(`inscope(seq) AS MATERIALIZED (SELECT seq FROM chunks WHERE ${scope.where})`);
      params.push(...scope.params);
      holds += ' AND +rowid IN inscope';
    }
    const cte = ctes.length === 0 ? '' : `WITH ${ctes.join(', ')} `;
    const cteParams = params.length;
    // bm25() is lower-is-better; negate and scale by the boost so higher is better.
    const sub = groups.map((g) => {
      params.push(g.boost, g.match);
      return `SELECT rowid AS seq, -${bm25} * ? AS score FROM chunks_fts WHERE chunks_fts MATCH ?${holds}`;
    });
    const scored =
      sub.length === 1
        ? sub[0]!
        : `SELECT seq, sum(score) AS score FROM (${sub.join(' UNION ALL ')}) GROUP BY seq`;
    if (scope === null && hasFilter(filter) && this.probes.worthProbing(filter)) {
      // A filter that keeps most rows: the best few beyond the limit, joined and tested,
      // usually hold the answer, and then it is exactly the full query's (the kept rows
      // in the same order). A window shorter than asked for held every scored row, so
      // what passed is the whole answer too. Only otherwise is every row joined. (A
      // scope has already narrowed the scored rows to the filter's prefixes.)
      const window = Math.max(limit * FILTER_PROBE_FACTOR, FILTER_PROBE_MIN);
      const probeParams: unknown[] = [];
      const keep = filterSql('c', filter, probeParams);
      const rows = this.ctx
        .stmt(
          `${cte}SELECT ${columns}, (${keep}) AS kept_by_filter
           FROM (${scored} ORDER BY score DESC, seq LIMIT ?) s
           JOIN chunks c ON c.seq = s.seq ORDER BY s.score DESC, s.seq`,
        )
        .all(...params.slice(0, cteParams), ...probeParams, ...params.slice(cteParams), window) as {
        kept_by_filter?: number;
      }[];
      const passed = rows.filter((r) => r.kept_by_filter === 1);
      const kept = passed.slice(0, limit);
      for (const r of kept) delete r.kept_by_filter;
      if (kept.length >= limit || rows.length < window) {
        this.probedFilters++;
        return kept;
      }
      this.shortProbes++;
      // Remembered only when the filter kept under half the window: a narrow filter,
      // not a broad one whose best rows happened to fall outside it.
      if (passed.length * FILTER_PROBE_FACTOR < rows.length) this.probes.cameBackShort(filter);
    }
    const where = filterSql('c', filter, params);
    let sql: string;
    if (where === '') {
      // No filter: take the top k before joining, so only k chunk rows are read.
      sql = `${cte}SELECT ${columns} FROM (${scored} ORDER BY score DESC, seq LIMIT ?) s
             JOIN chunks c ON c.seq = s.seq ORDER BY s.score DESC, s.seq`;
    } else {
      sql = `${cte}SELECT ${columns} FROM (${scored}) s JOIN chunks c ON c.seq = s.seq
             WHERE ${where} ORDER BY s.score DESC, s.seq LIMIT ?`;
    }
    params.push(limit);
    return this.ctx.stmt(sql).all(...params);
  }

  get(ids: readonly string[]): Chunk[] {
    const byId = new Map<string, Chunk>();
    const unique = [...new Set(ids)];
    for (const batch of chunked(unique, IN_BATCH)) {
      const rows = this.ctx
        .stmt(`SELECT * FROM chunks WHERE id IN (${sqlList(batch.length)})`)
        .all(...batch) as ChunkRow[];
      for (const r of rows) byId.set(r.id, rowToChunk(r));
    }
    return unique.flatMap((id) => byId.get(id) ?? []);
  }
}
