/**
 * Domain types shared by every stage. Paths are always POSIX-style and
 * relative to the indexed root; line numbers are 1-based and inclusive.
 */

/** Why the scanner left a file out. Counted and reported per reason. */
export type SkipReason =
  | 'ignored' // .gitignore / .codesiftignore / built-in ignore list
  | 'binary'
  | 'too-large'
  | 'vendored'
  | 'generated'
  | 'minified' // minified or bundled code told by its content, whatever its name
  | 'secret' // .env, private keys: never indexed by default
  | 'symlink-outside-root'
  | 'symlink-loop'
  | 'duplicate' // a second path (through a symlink) to a file already indexed under another path
  | 'unreadable';

/** A file the scanner accepted for indexing. */
export interface ScannedFile {
  /** Path relative to the root, POSIX separators. */
  path: string;
  /** Absolute path on disk (after resolving the root, not the file's own symlinks). */
  absPath: string;
  size: number;
  mtimeMs: number;
  /** Language id from the extension (see @codesift/analysis detectLanguage). */
  language: string;
  /**
   * Named by a negation in an ignore file (`!dist/app.js`): the user asked
   * for it, so content rules guessing "generated" or "minified" do not apply.
   */
  explicit?: boolean;
}

/** A scanned file with its content read and hashed. */
export interface FileContent extends ScannedFile {
  /** sha256 hex of the raw bytes. */
  hash: string;
  /** Decoded text; invalid UTF-8 sequences are replaced with U+FFFD. */
  text: string;
  /** True when the bytes were not valid UTF-8 (text is a lossy decode). */
  lossy: boolean;
}

/** Kind of code unit a chunk or symbol covers. */
export type UnitKind =
  | 'function'
  | 'method'
  | 'class'
  | 'interface'
  | 'type'
  | 'enum'
  | 'struct'
  | 'trait'
  | 'impl'
  | 'module'
  | 'constant'
  | 'variable'
  | 'field'
  | 'section' // markdown heading section
  | 'block' // top-level code between definitions
  | 'window'; // line-window fallback

export interface Chunk {
  /** Deterministic id: same path, range and content give the same id. */
  id: string;
  path: string;
  language: string;
  startLine: number;
  endLine: number;
  /** Enclosing symbol path, e.g. `Graph.addEdge`; null for plain blocks. */
  symbol: string | null;
  kind: UnitKind;
  /** Raw source text of the chunk, never rewritten. */
  content: string;
  /** Signature line(s) of the chunk's own symbol, if any. */
  signature?: string;
  /** Doc comment attached to the chunk's own symbol, if any. */
  doc?: string;
  /** Short natural-language context (contextualizer); stored in its own field. */
  context?: string;
  /**
   * Where `context` came from: the chat model (`llm`) or the pattern rule.
   * Absent: not recorded (an index written before sources were).
   */
  contextSource?: ContextSource;
  /** LLM mode, when the pattern stood in: why (`timeout`, `garbage`, `too-long`, ...). */
  contextFallback?: string;
}

/** Who wrote a chunk's context. */
export type ContextSource = 'llm' | 'pattern';

export interface SymbolInfo {
  /** Deterministic id from path, qualified name and start line. */
  id: string;
  name: string;
  /** Qualified name including parents, e.g. `Graph.addEdge`. */
  qualifiedName: string;
  kind: UnitKind;
  path: string;
  language: string;
  startLine: number;
  endLine: number;
  /** Qualified name of the enclosing symbol, or null at top level. */
  parent: string | null;
  signature: string;
  doc: string;
}

/** What the manifest remembers about an indexed file. */
export interface FileRecord {
  path: string;
  hash: string;
  size: number;
  mtimeMs: number;
  language: string;
  chunkCount: number;
  symbolCount: number;
  indexedAt: number;
}
