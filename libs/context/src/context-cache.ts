import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Chunk } from '@codesift/core';
import Database from 'better-sqlite3';

/**
 * Contexts the model wrote, keyed by what determines them: the chunk's path
 * and content, the model and the prompt version. Only accepted LLM answers
 * are stored (a fallback is asked again next time, when the model may be up).
 *
 * Locally it is its own small SQLite file beside the index
 * (`<index dir>/contexts.db`): `--rebuild` deletes the index file, not this
 * one, and the keys hold no absolute path, so moving the index directory
 * (or the checkout) keeps every answer. In the cluster it is a JetStream
 * key-value bucket shared by the contextualizer's replicas (same keys), so
 * its methods may answer asynchronously.
 */
export interface ContextCache {
  /** The stored context, or undefined; a cache that cannot answer says undefined (a miss). */
  get(key: string): string | undefined | Promise<string | undefined>;
  /** Stores an accepted context; a cache that cannot store drops it (it is asked again later). */
  put(key: string, context: string, model: string, promptVersion: string): void | Promise<void>;
  /** Entries stored. */
  size(): number | Promise<number>;
  close(): void;
}

export const CONTEXT_CACHE_FILE = 'contexts.db';

export function contextCacheKey(chunk: Chunk, model: string, promptVersion: string): string {
  return createHash('sha256')
    .update(JSON.stringify([promptVersion, model, chunk.path, chunk.content]))
    .digest('hex');
}

export function openContextCache(file: string): ContextCache {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE IF NOT EXISTS contexts (
    key TEXT PRIMARY KEY,
    context TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) WITHOUT ROWID`);
  const select = db.prepare<[string], { context: string }>(
    'SELECT context FROM contexts WHERE key = ?',
  );
  const insert = db.prepare(
    'INSERT OR REPLACE INTO contexts (key, context, model, prompt_version, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM contexts');
  return {
    get: (key) => select.get(key)?.context,
    put: (key, context, model, promptVersion) => {
      insert.run(key, context, model, promptVersion, Date.now());
    },
    size: () => count.get()?.n ?? 0,
    close: () => db.close(),
  };
}
