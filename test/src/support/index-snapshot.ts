import Database from 'better-sqlite3';

/**
 * Everything two SQLite indexes must agree on (files, chunks with their
 * context and who wrote it, symbols), read straight from the files: how the
 * e2e tests check that cluster mode builds the index local mode builds.
 */
export function indexSnapshot(indexPath: string) {
  const db = new Database(indexPath, { readonly: true });
  try {
    const all = (sql: string) => db.prepare(sql).all();
    return {
      files: all(
        'SELECT path, hash, size, language, chunk_count, symbol_count FROM files ORDER BY path',
      ),
      chunks: all(
        'SELECT id, path, start_line, end_line, symbol, kind, content, context, context_source, context_fallback, signature, doc FROM chunks ORDER BY id',
      ) as Record<string, unknown>[],
      symbols: all('SELECT id, name, qualified_name, kind, path, parent FROM symbols ORDER BY id'),
    };
  } finally {
    db.close();
  }
}
