// A SearchEngine that follows the index the writer fills. The engine reads
// the index's embedder once, when it opens; after the writer records one
// (the first job with vectors) or the file is replaced (a rebuild), the
// engine must be opened again, or search stays keyword-only or reads a
// deleted file until a restart. A timer compares the index's identity and
// swaps in a fresh engine; calls in flight finish on the old one, which
// closes when its last call returns.
import { statSync } from 'node:fs';
import { type SearchEngine, swappableEngine } from '@codesift/search';
import { openSqliteIndex } from '@codesift/stores';

export interface IndexIdentity {
  /** The file's inode: a rebuilt index is a new file (0 for stores that are not files). */
  ino: number;
  embedder: string | null;
  dimensions: number | null;
  createdAt: number;
}

/** The index's identity, or null while the file does not exist (or cannot be read yet). */
export function readIndexIdentity(indexPath: string): IndexIdentity | null {
  let ino: number;
  try {
    ino = statSync(indexPath).ino;
  } catch {
    return null;
  }
  try {
    const index = openSqliteIndex(indexPath, { readonly: true });
    try {
      const m = index.meta();
      return { ino, embedder: m.embedder, dimensions: m.dimensions, createdAt: m.createdAt };
    } finally {
      index.close();
    }
  } catch {
    return null;
  }
}

export function sameIdentity(a: IndexIdentity | null, b: IndexIdentity | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.ino === b.ino &&
    a.embedder === b.embedder &&
    a.dimensions === b.dimensions &&
    a.createdAt === b.createdAt
  );
}

export interface ReopeningOptions {
  /** The SQLite index whose identity is watched, unless `identity` is given. */
  indexPath?: string;
  /** Reads the current identity (null: not readable now); default readIndexIdentity(indexPath). */
  identity?: () => Promise<IndexIdentity | null>;
  open: () => Promise<SearchEngine>;
  /** Between identity checks; default 3000 ms. */
  pollMs?: number;
  onReopen?: (identity: IndexIdentity) => void;
  onError?: (err: unknown) => void;
}

export interface ReopeningEngine {
  readonly engine: SearchEngine;
  /** Checks the identity now and reopens when it changed; resolves once done. */
  check(): Promise<boolean>;
  close(): Promise<void>;
}

export async function openReopeningEngine(opts: ReopeningOptions): Promise<ReopeningEngine> {
  const { indexPath } = opts;
  const readIdentity =
    opts.identity ?? (async () => (indexPath === undefined ? null : readIndexIdentity(indexPath)));
  let identity = await readIdentity();
  const slot = swappableEngine(await opts.open(), opts.onError);
  let checking: Promise<boolean> | null = null;
  const run = async (): Promise<boolean> => {
    try {
      const now = await readIdentity();
      if (now === null || sameIdentity(now, identity) || slot.closed) return false;
      if (!(await slot.swap(await opts.open()))) return false;
      identity = now;
      opts.onReopen?.(now);
      return true;
    } catch (err) {
      opts.onError?.(err);
      return false;
    }
  };
  // One check at a time; a caller during a check shares its outcome.
  const check = (): Promise<boolean> => {
    checking ??= run().finally(() => {
      checking = null;
    });
    return checking;
  };
  const timer = setInterval(() => void check(), opts.pollMs ?? 3000);
  timer.unref();
  const engine: SearchEngine = {
    ...slot.engine,
    close: async () => {
      clearInterval(timer);
      await slot.engine.close();
    },
  };
  return { engine, check, close: () => engine.close() };
}
