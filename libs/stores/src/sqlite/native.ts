/**
 * better-sqlite3 and sqlite-vec, loaded with require() rather than import.
 * Node imports a CommonJS package into an ES module only after parsing its
 * source, and every module it re-exports, for named exports: that parse
 * doubled what loading these two cost each cold `codesift search` (about
 * 12 -> 6 ms and 8 -> 2 ms measured in fresh processes). Types still come
 * from `import type`.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** better-sqlite3's Database constructor. */
export const SqliteDatabase = require('better-sqlite3') as typeof import('better-sqlite3');

/** Loads the sqlite-vec extension into a connection. */
export const loadSqliteVec = (require('sqlite-vec') as typeof import('sqlite-vec')).load;
