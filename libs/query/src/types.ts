/**
 * The typed query tree. `parseQuery` turns a user's text into these plain
 * objects; everything downstream (specificity, focus, expansion, the planner
 * in libs/search) reads them and never re-parses the string. Every node
 * carries the exact slice of the input it came from (`text`, `start`, `end`,
 * UTF-16 offsets, `end` exclusive) so a plan can point back at the words
 * that caused each decision.
 */

/**
 * How a term is written. The shape is what makes a query "code-like":
 * - `code`: letters and digits mixed, e.g. `D40`, `E1101`, `HTTP-404`,
 *   `PII-2024-0042`, `utf8`, or a spaced citation merged from several words
 *   (`30 CFR 75.1725`, `RFC 7231`);
 * - `path`: `src/a/b.ts`, `a/b.go:42`, `walk.ts`, `C:\x\y.py`;
 * - `url`: anything with `://`;
 * - `dotted`: qualified names, `os.path.join`, `pkg.Func`, `std::vec`, `Foo#bar`;
 * - `call`: a name written with a call's parentheses, `foo()`, `int(x)`;
 * - `camel` `addEdge`, `pascal` `OllamaEmbedder`, `snake` `max_file_bytes`,
 *   `screaming` `MAX_FILE_BYTES`, `kebab` `max-file-bytes`;
 * - `acronym`: an all-capital word without digits, `HTTP`, `CFR`;
 * - `number`: `404`, `75.1725`, `0x1f`, `v1.2.3`;
 * - `word`: everything else (prose, `Search`, `scanner`).
 */
export type TermShape =
  | 'code'
  | 'path'
  | 'url'
  | 'dotted'
  | 'call'
  | 'camel'
  | 'pascal'
  | 'snake'
  | 'screaming'
  | 'kebab'
  | 'acronym'
  | 'number'
  | 'word';

/** What a term extracted from a stack trace stands for. */
export type TraceRole = 'path' | 'function' | 'error-type' | 'message';

interface NodeBase {
  /** The input slice this node covers, verbatim. */
  text: string;
  /** Offset of the first character in the input. */
  start: number;
  /** Offset just past the last character. */
  end: number;
}

export interface TermNode extends NodeBase {
  kind: 'term';
  /**
   * The term as it should be searched: edge punctuation trimmed, a path's
   * `:line:col` suffix removed, a call's parentheses removed, a stack
   * frame's function reduced to the part a repository defines
   * (`github.com/x/y/pkg.(*T).M` -> `T.M`). Case is kept.
   */
  value: string;
  shape: TermShape;
  /** A filler word ("tell", "me", "the", a lone letter): kept for fidelity, ignored by scoring and expansion. */
  stop: boolean;
  /** Line (1-based) from a `path:42` suffix or a stack frame. */
  line?: number;
  column?: number;
  /** Set on terms extracted from a stack trace or error line. */
  trace?: TraceRole;
}

export interface PhraseNode extends NodeBase {
  kind: 'phrase';
  /** The text between the quotes. */
  value: string;
  quote: '"' | "'";
  /** The phrase's words, tokenized like top-level text (positions are input offsets). */
  terms: TermNode[];
}

export type FilterField = 'language' | 'path';

export interface FilterNode extends NodeBase {
  kind: 'filter';
  /** The key as typed (`lang`, `language`, `path`, `file`), lowercased, without the `-`. */
  key: string;
  field: FilterField;
  /** `-path:` / `-lang:` excludes. */
  negated: boolean;
  /** The value as typed (quotes removed). */
  value: string;
  /**
   * Normalised values: language aliases resolved to the ids of
   * detectLanguage (`py` -> `python`), comma lists split; paths as typed
   * with `\` turned into `/`.
   */
  values: string[];
}

/** The runtime or tool a trace block comes from; 'java' is any JVM language, 'native' C and C++ (gdb, lldb, sanitizers). */
export type TraceFormat =
  | 'python'
  | 'javascript'
  | 'java'
  | 'go'
  | 'rust'
  | 'dotnet'
  | 'ruby'
  | 'php'
  | 'swift'
  | 'native'
  | 'shell'
  | 'lua'
  | 'generic';

export interface StackFrame {
  /** The file as printed (a `file://` prefix removed); null when the frame has none. */
  path: string | null;
  line: number | null;
  column: number | null;
  /** The function as printed, e.g. `pkg.(*T).Method`, `Object.<anonymous>`; null when none. */
  function: string | null;
  /** Standard library, runtime or third-party dependency code: not in the user's repository. */
  external: boolean;
  /** Printed from an installed copy of the searched repository and read as its code (ParseContext.ownFrames). */
  installed?: boolean;
  start: number;
  end: number;
}

export interface TraceError {
  /** `ValueError`, `java.lang.NullPointerException`, `panic`, `Error`. */
  type: string;
  /** Text after the type, '' when none. */
  message: string;
  start: number;
  end: number;
}

/**
 * A block of consecutive stack-trace lines (frames, headers, error lines).
 * Its strong signals are in `terms`: paths and functions of frames in the
 * user's code (external frames are listed but yield no terms), the error
 * types and the words of the error messages. Everything else in the block
 * (addresses, goroutine headers, quoted source lines) is dropped, which is
 * what reduces a pasted report to what is worth searching for.
 */
export interface TraceNode extends NodeBase {
  kind: 'trace';
  format: TraceFormat;
  frames: StackFrame[];
  errors: TraceError[];
  /** Deduplicated signal terms, in input order, each with `trace` set. */
  terms: TermNode[];
  /**
   * Where the failure is as far as the repository is concerned: the function
   * of the innermost frame in the user's code (runtime and dependency frames
   * skipped; innermost is the first frame printed, or the last for runtimes
   * that print the outermost first, as Python), reduced to the symbol path the
   * chunker gives its definition. Null when no user frame names a function.
   */
  failingFunction: string | null;
  /**
   * That frame's file and line, when it prints them: where to look when the
   * repository has no symbol for the function (a language without a grammar,
   * as Swift).
   */
  failingLocation: { path: string; line: number | null } | null;
}

export type QueryNode = TermNode | PhraseNode | FilterNode | TraceNode;

export interface QueryFilters {
  /** From `lang:` / `language:`; language ids as detectLanguage returns them. */
  languages: string[];
  /** From `-lang:`. */
  excludeLanguages: string[];
  /** From `path:` / `file:`; globs or plain paths, as typed. */
  include: string[];
  /** From `-path:` / `-file:`. */
  exclude: string[];
}

export interface ParsedQuery {
  input: string;
  /** Top-level nodes in input order. Phrase words and trace signals are nested in their nodes. */
  nodes: QueryNode[];
  /** Every term: top-level ones, phrase words and trace signals, in input order. */
  terms: TermNode[];
  filters: QueryFilters;
  /** The input with the filters cut out (what the embedder and the LLM should see). */
  text: string;
  /** How identifier/code-heavy the query is, 0..1 (see specificity.ts for the formula). */
  specificity: number;
  /** Every content unit is an identifier, code or path: the vector side can be skipped. */
  isIdentifierOnly: boolean;
  /** A stack trace or error line was found. */
  hasTrace: boolean;
  /**
   * Exact anchors for boosting: the values of identifier-shaped terms
   * (code, path, dotted, call, camel, pascal, snake, screaming) and of
   * quoted phrases, deduplicated, in input order.
   */
  anchors: string[];
}
