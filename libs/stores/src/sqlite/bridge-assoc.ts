/**
 * The offline vocabulary bridge's co-occurrence statistics, computed at
 * index time (issue 14): for each identifier (the analyzer term of a symbol
 * name), the words found with it in the same chunks, with the number of
 * chunks holding both. Reading them from the FTS postings at query time
 * (cooccurrence.ts, still the path for an index without this table) meant
 * one MATCH per query word and per candidate identifier, most of the
 * bridge's cost; this table answers with one indexed read per candidate.
 *
 * Bounded by what the bridge counts (bridge-score.ts): a word and an
 * identifier found together in at least ASSOC_MIN_JOINT chunks, with a
 * normalized PMI of at least ASSOC_MIN_NPMI; only words the bridge reads
 * (letters, 3 or more, in at most ASSOC_MAX_WORD_SHARE of the chunks) and
 * identifiers it may bridge (in at most ASSOC_MAX_TERM_SHARE of them).
 * Most pairs are single shared chunks: on pydata/xarray (5,891 chunks) the
 * pairs kept are 152k of 758k, 0.7 MB in the compact form (assoc-pairs.ts).
 * A row keeps at most MAX_ASSOC_WORDS words, those of highest PMI, a bound
 * for pathological repositories (xarray's longest row has 1,788; a cap of
 * 512 changed the bridge's weights on 9 of 52 queries there). The kept
 * counts are exact, so on a fresh index the bridge ranks as it does from
 * the postings; after incremental runs, a pair whose PMI crossed the
 * threshold only because other chunks changed is not re-examined until its
 * identifier is dirty or the table is recounted.
 *
 * Kept up to date by the writer: every chunk written or removed marks its
 * terms dirty, and flush() (at the end of an index run, `codesift watch`'s
 * partial runs included: both close the index) recounts the dirty
 * identifiers from the chunks that hold them now, so a changed file's old
 * associations go away. The meta row `bridge_assoc` says whether the table
 * matches the chunks ('current'); a writer sets it 'stale' with its first
 * change, so readers fall back to the postings while a run is under way or
 * after one died before its flush, and the next writer recounts all.
 */
import { analyze, analyzeQuery } from '@codesift/analysis';
import { decodePairs, encodePairs } from './assoc-pairs.js';
import { getMetaValue, setMetaValue } from './schema.js';
import { chunked, IN_BATCH, type SqliteContext, sqlList } from './sql.js';
import type { TermStats } from './term-stats.js';

/**
 * One row per identifier: its words as (word id, count) pairs (assoc-pairs.ts);
 * bridge_words numbers the words. Rowid tables: most rows are a few hundred
 * bytes to a few kilobytes, which a WITHOUT ROWID table's pages would spill
 * to overflow pages.
 */
export const BRIDGE_ASSOC_TABLES = `
CREATE TABLE IF NOT EXISTS bridge_assoc (term TEXT PRIMARY KEY, pairs BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS bridge_words (id INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE);`;

/** Words kept per identifier at most. */
export const MAX_ASSOC_WORDS = 2048;
/** Chunks a word and an identifier must share to count: one shared chunk is as often chance. */
export const ASSOC_MIN_JOINT = 2;
/** A normalized PMI below this is chance-level co-occurrence, not counted. */
export const ASSOC_MIN_NPMI = 0.2;
/** A word in more than this share of the chunks is not kept (the bridge does not read it). */
export const ASSOC_MAX_WORD_SHARE = 0.2;
/** An identifier in more than this share of the chunks gets no row (the bridge does not bridge it). */
export const ASSOC_MAX_TERM_SHARE = 0.05;
/** What a word the bridge reads looks like (its query words pass the same test). */
export const ASSOC_WORD = /^\p{L}{3,}$/u;
/** A symbol name the bridge may add (a heading or a doc line some parsers report as a name is not one). */
const IDENTIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;
/** Dirty identifiers above this share of all of them: one pass over every chunk is cheaper. */
const FULL_RECOUNT_SHARE = 0.25;

const STATE_KEY = 'bridge_assoc';
const CURRENT = 'current';
const STALE = 'stale';

/** The text of a chunk as the FTS row is built from it. */
export interface ChunkText {
  content: string;
  symbol: string | null;
  signature?: string | null | undefined;
  path: string;
  context?: string | null | undefined;
}

/**
 * The analyzer terms of a chunk's FTS columns, in column order: code,
 * symbol (with the signature), path, context. `pathTerms`: the path's, when
 * the caller has them already.
 */
export function chunkColumns(
  c: ChunkText,
  pathTerms: string[] = analyze(c.path),
): [string[], string[], string[], string[]] {
  const symbolText = c.symbol === null ? (c.signature ?? '') : `${c.symbol}\n${c.signature ?? ''}`;
  return [analyze(c.content), analyze(symbolText), pathTerms, analyze(c.context ?? '')];
}

/** Every distinct term of a chunk (any column): what a MATCH on one term finds it by. */
function distinctTerms(columns: readonly string[][]): string[] {
  const out = new Set<string>();
  for (const col of columns) for (const t of col) out.add(t);
  return [...out];
}

/** The columns a chunk's terms are computed from. */
export const CHUNK_TEXT = 'path, content, symbol, signature, context';

/** Fresh term lists kept at most for this many chunks (a full run's last flush reuses them). */
const MAX_KEPT_CHUNKS = 200_000;

export class BridgeAssoc {
  /** Terms of chunks written or removed since the last flush (tracked when recounting only those). */
  private readonly dirty = new Set<string>();
  /** Terms of chunks inserted through this connection since the last flush, by seq. */
  private readonly fresh = new Map<number, string[]>();
  /**
   * This session's changes since the last flush: none yet; on a current
   * table (its dirty identifiers will be recounted); or on a table that was
   * not current (all will be, so nothing needs tracking).
   */
  private session: 'none' | 'incremental' | 'full' = 'none';

  constructor(
    private readonly ctx: SqliteContext,
    private readonly stats: TermStats,
  ) {}

  /** Whether readers may use the table (it exists and matches the chunks). */
  current(): boolean {
    return getMetaValue(this.ctx, STATE_KEY) === CURRENT;
  }

  /** Inside a write: a chunk was inserted with these FTS columns. */
  inserted(seq: number, columns: readonly string[][]): void {
    const terms = distinctTerms(columns);
    if (this.changing() === 'incremental') for (const t of terms) this.dirty.add(t);
    if (this.fresh.size < MAX_KEPT_CHUNKS) this.fresh.set(seq, terms);
  }

  /** Inside a write: chunks are about to be removed (their terms' counts change). */
  removing(rows: readonly (ChunkText & { seq: number })[]): void {
    if (rows.length === 0) return;
    const track = this.changing() === 'incremental';
    for (const r of rows) {
      const kept = this.fresh.get(r.seq);
      if (track) for (const t of kept ?? distinctTerms(chunkColumns(r))) this.dirty.add(t);
      this.fresh.delete(r.seq);
    }
  }

  /** A write transaction rolled back: the next change looks at the table's state again. */
  rolledBack(): void {
    this.session = 'none';
  }

  /** The first change of a session tells readers the table is behind. */
  private changing(): 'incremental' | 'full' {
    if (this.session === 'none') {
      if (getMetaValue(this.ctx, STATE_KEY) === CURRENT) {
        setMetaValue(this.ctx, STATE_KEY, STALE);
        this.session = 'incremental';
      } else {
        this.session = 'full';
      }
    }
    return this.session;
  }

  /**
   * Brings the table up to date (in the caller's write transaction): the
   * dirty identifiers are recounted, or all of them when the table was not
   * current before this session's changes (a new or older index, a run
   * that died before its flush) or when most are dirty.
   */
  flush(): void {
    const session = this.session;
    if (session === 'none' && this.current()) return;
    this.ctx.db.exec(BRIDGE_ASSOC_TABLES);
    const identifiers = this.identifiers();
    const dirty = [...this.dirty].filter((t) => identifiers.has(t));
    if (session !== 'incremental' || dirty.length > FULL_RECOUNT_SHARE * identifiers.size) {
      this.recountAll(identifiers);
    } else {
      this.recount([...this.dirty], identifiers);
    }
    setMetaValue(this.ctx, STATE_KEY, CURRENT);
    this.dirty.clear();
    this.fresh.clear();
    this.session = 'none';
  }

  /** The analyzer term of every symbol name: what the bridge may add. */
  private identifiers(): Set<string> {
    const out = new Set<string>();
    const rows = this.ctx.stmt('SELECT DISTINCT name FROM symbols').iterate() as IterableIterator<{
      name: string;
    }>;
    for (const r of rows) {
      if (!IDENTIFIER.test(r.name)) continue;
      const t = analyzeQuery(r.name)[0];
      if (t) out.add(t);
    }
    return out;
  }

  /** One pass over every chunk (the terms of those inserted this session are already known). */
  private recountAll(identifiers: ReadonlySet<string>): void {
    const chunks: string[][] = [];
    // Only the chunks this session did not write are read and analyzed again.
    const seqs = this.ctx.stmt('SELECT seq FROM chunks').pluck().all() as number[];
    const read = this.ctx.stmt(`SELECT ${CHUNK_TEXT} FROM chunks WHERE seq = ?`);
    for (const seq of seqs) {
      const kept = this.fresh.get(seq);
      if (kept) chunks.push(kept);
      else chunks.push(distinctTerms(chunkColumns(read.get(seq) as ChunkText)));
    }
    const df = new Map<string, number>();
    for (const terms of chunks) for (const t of terms) df.set(t, (df.get(t) ?? 0) + 1);
    this.ctx.stmt('DELETE FROM bridge_assoc').run();
    this.ctx.stmt('DELETE FROM bridge_words').run();
    this.write(count(chunks, identifiers, df), df, chunks.length);
  }

  /** The dirty identifiers, from the chunks holding each now (their postings). */
  private recount(dirty: readonly string[], identifiers: ReadonlySet<string>): void {
    const del = this.ctx.stmt('DELETE FROM bridge_assoc WHERE term = ?');
    for (const t of dirty) del.run(t);
    const targets = dirty.filter((t) => identifiers.has(t));
    const n = this.stats.total();
    const termDf = this.stats.lookup(targets);
    const terms = new Map<number, string[]>();
    const read = this.ctx.stmt(`SELECT ${CHUNK_TEXT} FROM chunks WHERE seq = ?`);
    const chunks: string[][] = [];
    for (const t of targets) {
      const d = termDf.get(t) ?? 0;
      if (d === 0 || d > ASSOC_MAX_TERM_SHARE * n) continue;
      const seqs = this.ctx
        .stmt('SELECT rowid AS seq FROM chunks_fts WHERE chunks_fts MATCH ?')
        .all(`"${t.replaceAll('"', '""')}"`) as { seq: number }[];
      for (const { seq } of seqs) {
        if (terms.has(seq)) continue;
        let list = this.fresh.get(seq);
        if (!list) {
          const row = read.get(seq) as ChunkText | undefined;
          list = row ? distinctTerms(chunkColumns(row)) : [];
        }
        terms.set(seq, list);
        chunks.push(list);
      }
    }
    const words = new Set<string>();
    for (const list of chunks) for (const w of list) if (ASSOC_WORD.test(w)) words.add(w);
    const df = new Map([...termDf, ...this.stats.lookup([...words])]);
    this.write(count(chunks, new Set(targets), df, n), df, n);
  }

  private write(
    counts: Map<string, Map<string, number>>,
    df: ReadonlyMap<string, number>,
    n: number,
  ): void {
    const rows: [string, [string, number][]][] = [];
    for (const [term, joint] of counts) {
      const best = topWords(joint, df.get(term) ?? 0, df, n);
      if (best.length > 0) rows.push([term, best]);
    }
    const ids = this.wordIds(rows.flatMap(([, best]) => best.map(([w]) => w)));
    const put = this.ctx.stmt('INSERT INTO bridge_assoc(term, pairs) VALUES (?, ?)');
    for (const [term, best] of rows)
      put.run(term, encodePairs(best.map(([w, c]) => [ids.get(w)!, c])));
  }

  /** The ids of `words`, numbering those not numbered yet. */
  private wordIds(words: readonly string[]): Map<string, number> {
    const out = this.knownIds([...new Set(words)]);
    const add = this.ctx.stmt('INSERT INTO bridge_words(word) VALUES (?)');
    for (const w of words) if (!out.has(w)) out.set(w, Number(add.run(w).lastInsertRowid));
    return out;
  }

  private knownIds(words: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    for (const batch of chunked(words, IN_BATCH)) {
      const rows = this.ctx
        .stmt(`SELECT id, word FROM bridge_words WHERE word IN (${sqlList(batch.length)})`)
        .all(...batch) as { id: number; word: string }[];
      for (const r of rows) out.set(r.word, r.id);
    }
    return out;
  }

  /** joint[term][word] for the terms that have a row (absent: no row); only `words` are kept. */
  read(terms: readonly string[], words: ReadonlySet<string>): Map<string, Record<string, number>> {
    const out = new Map<string, Record<string, number>>();
    const byId = new Map([...this.knownIds([...words])].map(([w, id]) => [id, w]));
    for (const batch of chunked([...new Set(terms)], IN_BATCH)) {
      const rows = this.ctx
        .stmt(`SELECT term, pairs FROM bridge_assoc WHERE term IN (${sqlList(batch.length)})`)
        .all(...batch) as { term: string; pairs: Uint8Array }[];
      for (const r of rows) {
        const joint: Record<string, number> = {};
        if (byId.size > 0) {
          decodePairs(r.pairs, (id, c) => {
            const w = byId.get(id);
            if (w !== undefined) joint[w] = c;
          });
        }
        out.set(r.term, joint);
      }
    }
    return out;
  }
}

/**
 * Chunks holding each identifier and each word, for the identifiers in
 * `identifiers` within the term share and the words within the word share.
 * `n`: chunks in the index (default: those given).
 */
function count(
  chunks: readonly (readonly string[])[],
  identifiers: ReadonlySet<string>,
  df: ReadonlyMap<string, number>,
  n = chunks.length,
): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  // What each distinct term is, decided once: its counts (an identifier's), and whether it is a word.
  const kinds = new Map<string, { counts: Map<string, number> | null; word: boolean }>();
  const kindOf = (t: string) => {
    let k = kinds.get(t);
    if (!k) {
      const d = df.get(t) ?? 0;
      let counts: Map<string, number> | null = null;
      if (identifiers.has(t) && d <= ASSOC_MAX_TERM_SHARE * n) {
        counts = new Map();
        out.set(t, counts);
      }
      k = { counts, word: d <= ASSOC_MAX_WORD_SHARE * n && ASSOC_WORD.test(t) };
      kinds.set(t, k);
    }
    return k;
  };
  for (const terms of chunks) {
    const ids: Map<string, number>[] = [];
    const words: string[] = [];
    for (const t of terms) {
      const k = kindOf(t);
      if (k.counts) ids.push(k.counts);
      if (k.word) words.push(t);
    }
    for (const m of ids) for (const w of words) m.set(w, (m.get(w) ?? 0) + 1);
  }
  return out;
}

/** The words counted with an identifier (ASSOC_MIN_JOINT, ASSOC_MIN_NPMI), highest PMI first, at most MAX_ASSOC_WORDS. */
function topWords(
  joint: ReadonlyMap<string, number>,
  dfTerm: number,
  df: ReadonlyMap<string, number>,
  n: number,
): [string, number][] {
  const scored: { w: string; c: number; npmi: number }[] = [];
  for (const [w, c] of joint) {
    const dfWord = df.get(w) ?? 0;
    if (c < ASSOC_MIN_JOINT || dfWord === 0 || dfTerm === 0 || c >= n) continue;
    const npmi = normalizedPmi(c, dfWord, dfTerm, n);
    if (npmi >= ASSOC_MIN_NPMI) scored.push({ w, c, npmi });
  }
  scored.sort((a, b) => b.npmi - a.npmi || b.c - a.c || (a.w < b.w ? -1 : 1));
  return scored.slice(0, MAX_ASSOC_WORDS).map((s) => [s.w, s.c]);
}

/** Normalized PMI of two terms in `both` of `n` chunks, `a` and `b` each: -1..1, 0 at chance. */
export function normalizedPmi(both: number, a: number, b: number, n: number): number {
  return Math.log((both * n) / (a * b)) / -Math.log(both / n);
}
