/**
 * The cluster's index: Elasticsearch holds the chunks (BM25 terms and the
 * raw chunk in one doc per chunk), the files' texts (for snippets: the
 * query service needs no checkout), the manifest and the index metadata;
 * Qdrant holds the vectors; symbols live in a SymbolIndex the caller gives
 * (in the cluster, the symbol service). One object serves the query service
 * (it is a SearchIndex for @codesift/search openEngine) and the writer (it
 * is a WriterStore).
 *
 * Writes without a transaction. `commitFiles` writes in this order, each
 * step idempotent:
 *   1. upsert the new chunks (ES) and their vectors (Qdrant) by chunk id;
 *      ids are deterministic (path, range, content), so an unchanged chunk
 *      is replaced in place and readers never see the file vanish; and put
 *      the file's text (or drop the old one when the commit has none);
 *   2. delete the file's stale chunks and vectors: those of its path whose
 *      id is not in the new set (delete-by-query, no read needed);
 *   3. replace its symbols, when this index writes symbols;
 *   4. only then put the manifest record (and touch `updatedAt`).
 * A crash or a failed request anywhere before 4 leaves the manifest with the
 * old record (or none): the file is "not done", the bus redelivers the
 * message (or the next scan sees the hash differ), and running the same
 * steps again completes it. Until then a search may briefly see old and new
 * chunks of the file side by side; never a file marked done with parts missing.
 *
 * `removeFiles` deletes the derived data (chunks, vectors, symbols, text) first and
 * the manifest record LAST, for the same reason: while the record exists the
 * file is still known, so a crash part-way is repaired by redelivery, or by
 * the next scan, which sees a recorded file missing from disk and deletes it
 * again. Removing the record first would leave orphaned chunks that nothing
 * ever revisits.
 *
 * Limit: two writers committing the same path at the same moment (two
 * versions of one file in flight) can interleave steps 1 and 2 and drop
 * each other's chunks; the pipeline sends one message per file per job, so
 * this needs two overlapping jobs touching the same file. The next commit of
 * the file repairs it.
 */
import {
  CodesiftError,
  forgetRepositories,
  type IndexLayout,
  placeRoot,
  repositoriesOf,
  repositoryPrefix,
} from '@codesift/core';
import type { SearchIndex } from '@codesift/search';
import type {
  FileCommit,
  IndexMeta,
  IndexStats,
  SymbolIndex,
  VectorHit,
  VectorIndex,
  VectorQuery,
  VectorRecord,
} from '@codesift/stores';
import {
  ElasticsearchChunkStore,
  ElasticsearchFileTexts,
  ElasticsearchIndexMeta,
  ElasticsearchKeywordIndex,
  ElasticsearchManifest,
  type RefreshPolicy,
  toCodesiftError,
} from '@codesift/stores-elasticsearch';
import { QdrantVectorIndex } from '@codesift/stores-qdrant';
import type { Client } from '@elastic/elasticsearch';
import { type ClusterNames, clusterNames } from './names.js';
import { NO_SYMBOLS } from './no-symbols.js';
import type { WriterStore } from './writer-store.js';

export { type ClusterNames, clusterNames, DEFAULT_INDEX_NAME } from './names.js';

export interface QdrantSettings {
  url: string;
  apiKey?: string;
  timeoutMs?: number;
  /** Points per upsert request (default 256). */
  batchSize?: number;
}

export interface ClusterIndexOptions {
  /** A configured Elasticsearch client. */
  es: Client;
  /** Close `es` when the index closes (true when the index made it). Default false. */
  ownsClient?: boolean;
  qdrant: QdrantSettings;
  /** Store set name: indices `<prefix>-chunks|manifest|meta|files`, collection `<prefix>-vectors`. */
  prefix?: string;
  /**
   * Symbols for search (lookups, vocabulary, counts) and, when given, also
   * written by commitFiles/removeFiles. The caller owns it (close() leaves it
   * open). Absent: no symbols (see NO_SYMBOLS) — the cluster writer leaves
   * symbols to the symbol service's own stage.
   */
  symbols?: SymbolIndex;
  /**
   * Create missing indices and the meta doc (the writer). Default false:
   * a reader (the query service) gets INDEX_NOT_FOUND until a writer ran.
   */
  create?: boolean;
  /** ES write visibility; default 'wait_for' (the ports' "visible once resolved"). */
  refresh?: RefreshPolicy;
  /** ES shards/replicas of new indices (default 1/0). */
  shards?: number;
  replicas?: number;
  /** For `location` in messages; default: the client's first node. */
  esUrl?: string;
  /** Clock (tests). */
  now?: () => number;
}

/** Largest vector dimension accepted, as in the SQLite index. */
const MAX_DIMENSIONS = 8192;
/** Attempts to record the embedder or the layout while other writers change the meta doc. */
const META_ATTEMPTS = 5;

export class ClusterIndex implements SearchIndex, WriterStore {
  readonly location: string;
  readonly names: ClusterNames;
  readonly keyword: ElasticsearchKeywordIndex;
  readonly chunks: ElasticsearchChunkStore;
  readonly manifest: ElasticsearchManifest;
  readonly fileTexts: ElasticsearchFileTexts;
  readonly symbols: SymbolIndex;
  /** Vector search over the Qdrant collection; finds nothing while the index has no embedder. */
  readonly vectors: VectorIndex;
  private readonly esMeta: ElasticsearchIndexMeta;
  private readonly writesSymbols: boolean;
  private qdrantIndex: QdrantVectorIndex | null = null;
  private closed = false;

  private constructor(private readonly opts: ClusterIndexOptions) {
    this.names = clusterNames(opts.prefix);
    const es = opts.es;
    const sizing = {
      ...(opts.shards === undefined ? {} : { shards: opts.shards }),
      ...(opts.replicas === undefined ? {} : { replicas: opts.replicas }),
    };
    const refresh = opts.refresh ?? 'wait_for';
    this.keyword = new ElasticsearchKeywordIndex({
      client: es,
      index: this.names.chunks,
      refresh,
      ...sizing,
    });
    this.chunks = new ElasticsearchChunkStore({ client: es, index: this.names.chunks });
    this.manifest = new ElasticsearchManifest({
      client: es,
      index: this.names.manifest,
      refresh,
      ...sizing,
    });
    this.fileTexts = new ElasticsearchFileTexts({ client: es, index: this.names.files, ...sizing });
    this.esMeta = new ElasticsearchIndexMeta({
      client: es,
      index: this.names.meta,
      ...(opts.replicas === undefined ? {} : { replicas: opts.replicas }),
      ...(opts.now ? { now: opts.now } : {}),
    });
    this.symbols = opts.symbols ?? NO_SYMBOLS;
    this.writesSymbols = opts.symbols !== undefined;
    const esUrl = opts.esUrl ?? firstNode(es) ?? 'elasticsearch';
    this.location = `elasticsearch ${esUrl} (${this.names.chunks}, ${this.names.manifest}, ${this.names.meta}, ${this.names.files}) + qdrant ${opts.qdrant.url} (${this.names.vectors})`;
    this.vectors = {
      upsert: (records: VectorRecord[]) => this.requireVectors().upsert(records),
      deleteByPaths: async (paths: string[]) => this.qdrantIndex?.deleteByPaths(paths),
      search: async (q: VectorQuery): Promise<VectorHit[]> =>
        this.qdrantIndex ? this.qdrantIndex.search(q) : [],
      count: async () => (this.qdrantIndex ? this.qdrantIndex.count() : 0),
    };
  }

  /**
   * Connects to the stores. With `create`, makes the ES indices and meta doc
   * when missing; then opens the Qdrant collection if the index records an
   * embedder. An index from another codesift version is INDEX_INCOMPATIBLE.
   */
  static async open(opts: ClusterIndexOptions): Promise<ClusterIndex> {
    const index = new ClusterIndex(opts);
    try {
      if (opts.create) {
        await index.keyword.ensureIndex();
        await index.manifest.ensureIndex();
        await index.fileTexts.ensureIndex();
        await index.esMeta.ensure();
      }
      const { meta } = await index.esMeta.read();
      if (meta.dimensions !== null) await index.openVectors(meta.dimensions);
      return index;
    } catch (err) {
      // The error that stopped the open matters, not one from closing after it.
      await index.close().catch(() => {});
      throw err;
    }
  }

  async meta(): Promise<IndexMeta> {
    this.ensureOpen();
    return (await this.esMeta.read()).meta;
  }

  async stats(): Promise<IndexStats> {
    this.ensureOpen();
    const [files, chunks, symbols, vectors, bytes] = await Promise.all([
      this.manifest.count(),
      this.keyword.count(),
      // Symbols live in another service (the symbol service): when it is
      // down, the index's status still answers, counting none.
      this.symbols.count().catch(() => 0),
      this.vectors.count(),
      this.esBytes(),
    ]);
    return { files, chunks, symbols, vectors, bytes };
  }

  /** Primary store size of the ES indices (Qdrant reports no size through its API). */
  private async esBytes(): Promise<number> {
    const names = [this.names.chunks, this.names.manifest, this.names.meta, this.names.files];
    try {
      const res = await this.opts.es.indices.stats({ index: names.join(','), metric: 'store' });
      return res._all.primaries?.store?.size_in_bytes ?? 0;
    } catch (err) {
      throw toCodesiftError(err, 'stats', names.join(','));
    }
  }

  async ensureEmbedder(name: string | null, dimensions: number | null): Promise<void> {
    this.ensureOpen();
    if ((name === null) !== (dimensions === null)) {
      throw new CodesiftError('INVALID_ARGUMENT', 'embedder name and dimensions go together');
    }
    if (
      dimensions !== null &&
      !(Number.isInteger(dimensions) && dimensions > 0 && dimensions <= MAX_DIMENSIONS)
    ) {
      throw new CodesiftError('INVALID_ARGUMENT', `invalid vector dimensions: ${dimensions}`);
    }
    for (let attempt = 0; attempt < META_ATTEMPTS; attempt++) {
      const at = await this.esMeta.read();
      const current = at.meta;
      if (current.embedder === name && current.dimensions === dimensions) {
        if (dimensions !== null && this.qdrantIndex?.dimensions !== dimensions) {
          await this.openVectors(dimensions);
        }
        return;
      }
      if (!(await this.isEmpty())) {
        const was =
          current.embedder === null
            ? 'no embedder'
            : `${current.embedder} (${current.dimensions}-d)`;
        const now = name === null ? 'no embedder' : `${name} (${dimensions}-d)`;
        throw new CodesiftError(
          'INDEX_INCOMPATIBLE',
          `index ${this.location} was built with ${was}, not ${now}`,
          {
            hint: 're-index into new indices (another CODESIFT_INDEX_NAME), or delete these and index again',
          },
        );
      }
      // An empty index takes the new model: the collection must fit it first, so that
      // once the meta names the model every writer finds a collection for its vectors.
      if (dimensions !== null) await this.prepareCollection(dimensions);
      else this.qdrantIndex = null;
      if (await this.esMeta.update(at, { embedder: name, dimensions })) return;
      // Another writer changed the meta between the read and the write: decide again.
    }
    throw new CodesiftError(
      'INTERNAL',
      `the metadata of index ${this.location} kept changing while recording the embedder`,
      { hint: 'retry; several writers may be starting with different embedders' },
    );
  }

  async setRoot(root: string, repository?: string): Promise<void> {
    this.ensureOpen();
    await this.updateLayout('recording the root', async (meta) => {
      const holdsFiles = meta.root !== null && (await this.manifest.count()) > 0;
      return placeRoot(meta, holdsFiles, root, repository);
    });
  }

  /**
   * Writes the layout `decide` derives from the meta doc (null: nothing to
   * change), read again and decided again when another writer changed the
   * doc in between.
   */
  private async updateLayout(
    what: string,
    decide: (meta: IndexMeta) => Promise<IndexLayout | null>,
  ): Promise<void> {
    for (let attempt = 0; attempt < META_ATTEMPTS; attempt++) {
      const at = await this.esMeta.read();
      const next = await decide(at.meta);
      if (next === null || (await this.esMeta.update(at, next))) return;
    }
    throw new CodesiftError(
      'INTERNAL',
      `the metadata of index ${this.location} kept changing while ${what}`,
    );
  }

  async commitFiles(batch: FileCommit[]): Promise<void> {
    this.ensureOpen();
    const files = lastPerPath(batch);
    if (files.length === 0) return;
    const vectorIndex = await this.checkCommits(files);
    // 1. New chunks, vectors and texts, by deterministic id (replacing unchanged ones in place).
    await this.keyword.upsert(files.flatMap((f) => f.chunks));
    const records = files.flatMap((f) => vectorRecords(f));
    if (records.length > 0) await vectorIndex!.upsert(records);
    await this.fileTexts.replace(
      files.flatMap((f) => (f.text === undefined ? [] : [{ path: f.record.path, text: f.text }])),
      files.flatMap((f) => (f.text === undefined ? [f.record.path] : [])),
    );
    // 2. What the files had and no longer have.
    const stale = files.map((f) => ({ path: f.record.path, keep: f.chunks.map((c) => c.id) }));
    await this.keyword.deleteStale(stale);
    if (this.qdrantIndex) {
      await this.qdrantIndex.deleteStale(
        files.map((f) => ({
          path: f.record.path,
          keep: f.vectors ? f.chunks.map((c) => c.id) : [],
        })),
      );
    }
    // 3. Symbols, when this index keeps them.
    if (this.writesSymbols) {
      await this.symbols.deleteByPaths(files.map((f) => f.record.path));
      const symbols = files.flatMap((f) => f.symbols);
      if (symbols.length > 0) await this.symbols.upsert(symbols);
    }
    // 4. Last: the manifest says the files are done.
    await this.manifest.put(files.map((f) => f.record));
    await this.esMeta.touch();
  }

  async removeFiles(paths: string[]): Promise<void> {
    this.ensureOpen();
    const unique = [...new Set(paths)];
    if (unique.length === 0) return;
    await this.keyword.deleteByPaths(unique);
    await this.qdrantIndex?.deleteByPaths(unique);
    if (this.writesSymbols) await this.symbols.deleteByPaths(unique);
    await this.fileTexts.remove(unique);
    // Last: until the record goes, the file is still known and the removal is retried.
    await this.manifest.remove(unique);
    await this.forgetEmptied(unique);
    await this.esMeta.touch();
  }

  /** A repository whose last file went is forgotten (removing a repository is emptying it). */
  private async forgetEmptied(removed: string[]): Promise<void> {
    await this.updateLayout('forgetting emptied repositories', async (meta) => {
      const emptied: string[] = [];
      for (const name of repositoriesOf(meta.repositories, removed)) {
        if (!(await this.manifest.hasUnder(repositoryPrefix(name)))) emptied.push(name);
      }
      return forgetRepositories(meta, emptied);
    });
  }

  /** Deletes every index and the collection of this store set (tests, rebuilds); the index stays usable only after a new open with `create`. */
  async drop(): Promise<void> {
    this.ensureOpen();
    await this.keyword.drop();
    await this.manifest.drop();
    await this.fileTexts.drop();
    await this.esMeta.drop();
    await QdrantVectorIndex.drop(this.qdrantConnection());
    this.qdrantIndex = null;
  }

  /** Elasticsearch refreshes and merges, Qdrant indexes, on their own. */
  async optimize(): Promise<void> {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.qdrantIndex = null;
    if (this.opts.ownsClient) await this.opts.es.close();
  }

  /** Throws (before any write) on what SQLite's transaction would refuse; returns the vector index needed. */
  private async checkCommits(files: readonly FileCommit[]): Promise<QdrantVectorIndex | null> {
    let needsVectors = false;
    for (const f of files) {
      const p = f.record.path;
      for (const c of f.chunks) {
        if (c.path !== p) {
          throw new CodesiftError(
            'INVALID_ARGUMENT',
            `${p}: chunk ${c.id} belongs to ${c.path}, not to the file committed`,
          );
        }
      }
      if (f.vectors === null) continue;
      if (f.vectors.length !== f.chunks.length) {
        throw new CodesiftError(
          'INVALID_ARGUMENT',
          `${p}: ${f.vectors.length} vectors for ${f.chunks.length} chunks`,
        );
      }
      needsVectors ||= f.vectors.length > 0;
    }
    if (!needsVectors) return this.qdrantIndex;
    if (!this.qdrantIndex) {
      // Another writer may have recorded the embedder since this one opened.
      const { meta } = await this.esMeta.read();
      if (meta.dimensions !== null) await this.openVectors(meta.dimensions);
    }
    const vi = this.qdrantIndex;
    if (!vi) {
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `index ${this.location} records no embedder, but the commit carries vectors`,
        { hint: 'call ensureEmbedder(name, dimensions) before committing vectors' },
      );
    }
    for (const f of files) {
      for (const v of f.vectors ?? []) {
        if (v.length !== vi.dimensions) {
          throw new CodesiftError(
            'INVALID_ARGUMENT',
            `${f.record.path}: a vector has ${v.length} dimensions, the index expects ${vi.dimensions}`,
          );
        }
      }
    }
    return vi;
  }

  private requireVectors(): QdrantVectorIndex {
    if (!this.qdrantIndex) {
      throw new CodesiftError('INVALID_ARGUMENT', `index ${this.location} records no embedder`, {
        hint: 'call ensureEmbedder(name, dimensions) first',
      });
    }
    return this.qdrantIndex;
  }

  private qdrantConnection() {
    const q = this.opts.qdrant;
    return {
      collection: this.names.vectors,
      url: q.url,
      ...(q.apiKey ? { apiKey: q.apiKey } : {}),
      ...(q.timeoutMs ? { timeoutMs: q.timeoutMs } : {}),
    };
  }

  private async openVectors(dimensions: number): Promise<void> {
    const q = this.opts.qdrant;
    this.qdrantIndex = await QdrantVectorIndex.open({
      ...this.qdrantConnection(),
      dimensions,
      ...(q.batchSize ? { batchSize: q.batchSize } : {}),
    });
  }

  /** Makes the (empty) collection fit `dimensions`, replacing one made for another size. */
  private async prepareCollection(dimensions: number): Promise<void> {
    const found = await QdrantVectorIndex.inspect(this.qdrantConnection());
    if (found && found.dimensions !== dimensions) {
      if (found.points > 0) {
        throw new CodesiftError(
          'INDEX_INCOMPATIBLE',
          `Qdrant collection ${this.names.vectors} holds ${found.points} vectors of ${found.dimensions} dimensions`,
          { hint: 'delete the collection or use another CODESIFT_INDEX_NAME' },
        );
      }
      await QdrantVectorIndex.drop(this.qdrantConnection());
    }
    await this.openVectors(dimensions);
  }

  /** No files, no chunks and no vectors: the embedder may still change. */
  private async isEmpty(): Promise<boolean> {
    const [files, chunks, found] = await Promise.all([
      this.manifest.count(),
      this.keyword.count(),
      QdrantVectorIndex.inspect(this.qdrantConnection()),
    ]);
    return files === 0 && chunks === 0 && (found?.points ?? 0) === 0;
  }

  private ensureOpen(): void {
    if (this.closed) {
      throw new CodesiftError('INVALID_ARGUMENT', `index ${this.location} is closed`);
    }
  }
}

/** One commit per path, the last one winning, as SQLite's sequential commits would leave it. */
function lastPerPath(batch: readonly FileCommit[]): FileCommit[] {
  const byPath = new Map<string, FileCommit>();
  for (const f of batch) {
    byPath.delete(f.record.path);
    byPath.set(f.record.path, f);
  }
  return [...byPath.values()];
}

function vectorRecords(f: FileCommit): VectorRecord[] {
  const vectors = f.vectors;
  if (!vectors) return [];
  return f.chunks.map((c, i) => ({
    id: c.id,
    path: c.path,
    language: c.language,
    vector: vectors[i]!,
  }));
}

function firstNode(es: Client): string | undefined {
  const pool = (es as { connectionPool?: { connections?: { url?: URL }[] } }).connectionPool;
  const url = pool?.connections?.[0]?.url;
  return url ? `${url.protocol}//${url.host}` : undefined;
}
