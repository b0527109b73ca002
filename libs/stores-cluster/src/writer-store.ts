/**
 * What the writer stage needs of an index, whatever stores hold it: the
 * SQLite file (one process or many, WAL) or the cluster's Elasticsearch +
 * Qdrant (ClusterIndex). Async throughout, because remote stores are.
 *
 * The guarantee both give the writer: after `commitFiles` resolves, each
 * file is fully indexed and its manifest record says so; if it rejects (or
 * the process dies) part-way, the manifest does not say the new version is
 * done, so redelivering the same commit repairs the file. SQLite gets this
 * from one transaction; ClusterIndex from the order of its writes (see
 * cluster-index.ts).
 */
import type { FileCommit, IndexMeta, IndexStats, LocalIndex, Manifest } from '@codesift/stores';

export interface WriterStore {
  /** Where the index lives, for logs: a file path or store URLs. */
  readonly location: string;
  /** What is indexed, by path: the scanner plans incremental jobs from it. */
  readonly manifest: Pick<Manifest, 'all'>;
  meta(): Promise<IndexMeta>;
  /**
   * Records the embedder on first use; a no-op when it is already the one
   * recorded. Another model (or dimension) on an index that holds files
   * rejects with CodesiftError('INDEX_INCOMPATIBLE'), which no retry fixes.
   */
  ensureEmbedder(name: string | null, dimensions: number | null): Promise<void>;
  /** Records the absolute root directory the index's paths are relative to. */
  /** Records the job's root (or its repository's directory); see @codesift/core placeRoot. */
  setRoot(root: string, repository?: string): Promise<void>;
  /** Replaces everything stored for each file; the manifest records it last. */
  commitFiles(batch: FileCommit[]): Promise<void>;
  /** Removes files and everything derived from them; idempotent. */
  removeFiles(paths: string[]): Promise<void>;
  stats(): Promise<IndexStats>;
  /**
   * Brings read-side structures up to date after a burst of writes (SQLite:
   * merges FTS segments and saves the HNSW graph, which searches otherwise
   * skip for an exact scan); a no-op for stores that do this themselves.
   */
  optimize(): Promise<void>;
  close(): Promise<void>;
}

/** A LocalIndex (the SQLite file) as a WriterStore: the same calls, async. */
export function sqliteWriterStore(
  index: LocalIndex & { flushVectorIndex?: () => void },
  location: string,
): WriterStore {
  return {
    location,
    manifest: index.manifest,
    meta: async () => index.meta(),
    async ensureEmbedder(name, dimensions) {
      const meta = index.meta();
      if (meta.embedder === name && meta.dimensions === dimensions) return;
      index.setEmbedder(name, dimensions);
    },
    setRoot: async (root, repository) => index.setRoot(root, repository),
    commitFiles: async (batch) => index.commitFiles(batch),
    removeFiles: async (paths) => index.removeFiles(paths),
    stats: async () => index.stats(),
    optimize: async () => index.flushVectorIndex?.(),
    close: async () => index.close(),
  };
}
