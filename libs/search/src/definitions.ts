/**
 * Exact-identifier boost: when the query names a symbol (`addEdge`,
 * `parse_amount`, `Graph.addEdge`), the chunk holding that symbol's
 * definition should outrank the many chunks that merely use it. BM25 alone
 * prefers the users (a test calling `addEdge` three times beats the class
 * defining it once), so definitions found in the symbol index get a fixed
 * bonus on top of the fused score (see the engine for its size). Only
 * candidates the sides already returned can be boosted.
 */

import { detectLanguage } from '@codesift/analysis';

/** Most identifiers looked up per query: a pasted log names hundreds. */
export const MAX_QUERY_IDENTIFIERS = 8;
/**
 * Queries up to this long name what they are about: declarations, file
 * names, callers' spellings and path evidence count. A long report's words
 * and code examples point everywhere, so they do not.
 */
export const PATH_EVIDENCE_CHARS = 200;

const WORD = /[\p{L}_$][\p{L}\p{N}_$]*(?:(?:\.|::)[\p{L}_$][\p{L}\p{N}_$]*)*/gu;
/**
 * A declaration as code writes it (`type X struct`, `class X`, `def x`,
 * `fn x`, in a short query): X is a definition's name. After a keyword that is also an
 * English word (`the type of`, `a class of`) X must not be a lowercase word.
 */
const DECLARATION =
  /\b(def|func|fn|impl|type|class|struct|interface|enum|trait|module|function|protocol|record|object)\s+([\p{L}_$][\p{L}\p{N}_$]*)/gu;
const CODE_KEYWORDS = new Set(['def', 'func', 'fn', 'impl']);

/** Whether a word is a file name of a known language (`command.go`, `Parser.java`). */
export function isFileName(word: string): boolean {
  return /\.[A-Za-z][A-Za-z0-9]{0,5}$/.test(word) && detectLanguage(word) !== 'text';
}

/**
 * Code-shaped words of the query: the whole query when it is a single
 * word, otherwise words with an inner capital (camelCase, PascalCase with
 * more than one hump), an underscore or `$`, or a qualified name (`a.b`,
 * `a::b`). Plain prose words are left to BM25, with exceptions that
 * name a definition whatever its shape in a query of at most
 * PATH_EVIDENCE_CHARS: the name after a declaration keyword (`class
 * Command`, `def parse`), listed first, capitalized words of a query
 * that names a file (`command.go Command`), and, with `codeSpans`, a word
 * that is a Markdown code span's whole text (`` `polyval` ``, `` `subs()` ``:
 * the writer marked it as code; a title has no other way to say that a plain
 * word is a function's name). File names themselves are paths, not identifiers.
 */
export function queryIdentifiers(
  query: string,
  max = MAX_QUERY_IDENTIFIERS,
  { codeSpans = true }: { codeSpans?: boolean } = {},
): string[] {
  const trimmed = query.trim();
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (w: string) => {
    const key = w.toLowerCase();
    if (w.length < 2 || seen.has(key) || out.length >= max) return;
    seen.add(key);
    out.push(w);
  };
  // A long report's declarations are examples, not what it names: only a short query's count.
  const short = trimmed.length <= PATH_EVIDENCE_CHARS;
  for (const m of short ? trimmed.matchAll(DECLARATION) : []) {
    const name = m[2]!;
    if (CODE_KEYWORDS.has(m[1]!) || !/^\p{Ll}+$/u.test(name)) add(name);
  }
  let single: boolean | undefined;
  let namesFile: boolean | undefined;
  // Lazily: a pasted 20 KB log has thousands of words, and the first `max` identifiers suffice.
  for (const m of trimmed.matchAll(WORD)) {
    if (out.length >= max) break;
    const w = m[0];
    // The first word is the whole query exactly when the query is one word.
    single ??= w === trimmed;
    if (!single && isFileName(w)) continue;
    namesFile ??= short && (trimmed.match(WORD) ?? []).some(isFileName);
    const codeShaped =
      single ||
      /[\p{Ll}\p{N}]\p{Lu}/u.test(w) ||
      /[_$]/.test(w.replace(/^_+|_+$/g, '')) ||
      w.includes('.') ||
      w.includes('::') ||
      (namesFile && /^\p{Lu}/u.test(w)) ||
      (codeSpans && short && isCodeSpan(trimmed, m.index, w.length));
    if (codeShaped) add(w);
  }
  return out;
}

/**
 * Whether the word of `length` characters at `at` is a Markdown code span's
 * whole text, or a call in one (`` `subs()` ``). A pasted report's spans
 * are often whole expressions; a span of one word names one thing.
 */
export function isCodeSpan(text: string, at: number, length: number): boolean {
  return text[at - 1] === '`' && /^(?:\(\))?`/u.test(text.slice(at + length, at + length + 3));
}

/**
 * Among several definitions of one name, those whose path the query points
 * at: the most query words among its path's parts (directories, file name,
 * extension-less), when any has one. `type Options struct` in a repository
 * with five `Options` types, asked with `server options`, keeps the one
 * under `server/`. Without path evidence all are kept.
 */
export function preferByPath<T extends { path: string }>(
  defs: readonly T[],
  pathWords: readonly string[],
): T[] {
  if (defs.length < 2 || pathWords.length === 0) return [...defs];
  const words = new Set(pathWords);
  const score = (p: string) =>
    [...new Set(p.toLowerCase().split(/[^\p{L}\p{N}]+/u))].filter((w) => words.has(w)).length;
  const scores = defs.map((d) => score(d.path));
  const best = Math.max(...scores);
  return best === 0 ? [...defs] : defs.filter((_, i) => scores[i] === best);
}

/**
 * Among several definitions of one name, those with a body when any has
 * one. A function declared without one (its signature keeps the `;`: a C
 * prototype in a header, an interface or trait method) is what the name
 * refers to only when nothing implements it; `deflateBound` asks for the
 * code, not for the header's prototype beside its long doc comment.
 */
export function preferBodies<T extends { signature?: string }>(defs: readonly T[]): T[] {
  const bodied = defs.filter((d) => !d.signature?.endsWith(';'));
  return bodied.length > 0 && bodied.length < defs.length ? bodied : [...defs];
}

/**
 * Among several definitions of one name, the declarations when any: an
 * `impl` block (Rust) or an extension (Swift) adds to a type declared
 * elsewhere and carries its name, but `SplitArguments` asks for the struct,
 * not for the five files that extend it.
 */
export function preferDeclarations<T extends { kind?: string }>(defs: readonly T[]): T[] {
  const declared = defs.filter((d) => d.kind !== 'impl');
  return declared.length > 0 && declared.length < defs.length ? declared : [...defs];
}

/** A query's words for path evidence: lower case, 2+ letters or digits, each once. */
export function definitionPathWords(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])];
}

/**
 * Names to look a written identifier up by: itself, then for a dotted one
 * whose head is lowercase (a package, module or object: `cobra.OnInitialize`,
 * `self.reset_all`) its shorter tails, since symbol tables hold
 * `OnInitialize`, not the caller's spelling; a one-word tail only when it is
 * code-shaped or a type name (`OnInitialize`, `reset_all`, `Vec`, not `call`).
 *
 * `anyHead`: the tails whatever the head's case, for a trace's failing
 * function: a runtime prints namespaces and packages
 * (`Shop.Billing.InvoiceCalculator.Total`, `com.acme.Cart.add`) that a
 * symbol table may not hold.
 */
export function lookupNames(identifier: string, { anyHead = false } = {}): string[] {
  const parts = identifier.replaceAll('::', '.').split('.');
  const names = [parts.join('.')];
  if (parts.length > 1 && (anyHead || /^\p{Ll}/u.test(parts[0]!))) {
    for (let i = 1; i < parts.length; i++) {
      const tail = parts.slice(i);
      // A lone common word (`block.call` -> `call`, `rack.version` -> `version`) names
      // every middleware's `call`: only a distinctive tail is looked up.
      if (tail.length > 1 || /^\p{Lu}|[\p{Ll}\p{N}]\p{Lu}|[_$]/u.test(tail[0]!))
        names.push(tail.join('.'));
    }
  }
  return names;
}

export interface Definition {
  path: string;
  startLine: number;
  /** The symbol's signature; one ending in `;` was declared without a body. */
  signature?: string;
  /** The symbol's kind; an `impl` adds to a type declared elsewhere. */
  kind?: string;
  /** The name it was looked up by, and its last line: what forwarders.ts compares. */
  name?: string;
  endLine?: number;
}

export interface ChunkRange {
  path: string;
  startLine: number;
  endLine: number;
}

/** Whether the chunk holds the first line of one of the definitions. */
export function holdsDefinition(chunk: ChunkRange, defs: readonly Definition[]): boolean {
  return defs.some(
    (d) => d.path === chunk.path && d.startLine >= chunk.startLine && d.startLine <= chunk.endLine,
  );
}
