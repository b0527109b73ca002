import type { Chunk } from '@codesift/core';

/**
 * Pattern contextualizer: a one-to-two sentence description of a chunk built
 * from facts we already have (path, enclosing symbols, signature, doc). It is
 * what the LLM contextualizer falls back to, and it is always available.
 *
 * The sentence is written in words a person would search with: the path is
 * spelled out as words ("search engine"), identifiers are split, so the
 * vector side has natural language to match and BM25 gets the path terms.
 */

const KIND_WORDS: Record<string, string> = {
  function: 'function',
  method: 'method',
  class: 'class',
  interface: 'interface',
  type: 'type',
  enum: 'enum',
  struct: 'struct',
  trait: 'trait',
  impl: 'implementation',
  module: 'module',
  constant: 'constant',
  variable: 'variable',
  field: 'field',
  section: 'documentation section',
  block: 'top-level code',
  window: 'lines',
};

const LANGUAGE_NAMES: Record<string, string> = {
  typescript: 'TypeScript',
  tsx: 'TypeScript (TSX)',
  javascript: 'JavaScript',
  python: 'Python',
  go: 'Go',
  rust: 'Rust',
  java: 'Java',
  markdown: 'Markdown',
};

/** Most context a chunk gets; the embedder reads only ~128 tokens, shared with the code. */
export const MAX_CONTEXT_CHARS = 400;
const MAX_DOC_CHARS = 200;

/** `addEdgeToGraph` / `add_edge` / `add-edge` -> "add edge to graph" */
export function identifierWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_\-.$/\\]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** Directory and file-stem words of a path, without the extension or noise segments. */
export function pathWords(filePath: string): string {
  const parts = filePath.split('/');
  const file = parts.pop() ?? '';
  const stem = file.replace(/\.[^.]+$/, '').replace(/\.(test|spec|d)$/, '');
  const words = [...parts.filter((p) => p !== 'src' && p !== 'lib' && p !== '.'), stem]
    .flatMap((p) => identifierWords(p).split(' '))
    .filter(Boolean);
  // `mockSearcher/mock_searcher.go` says "mock searcher" once, not twice.
  return [...new Set(words)].join(' ');
}

function firstSentence(doc: string): string {
  const clean = doc
    .replace(/^\s*(\/\*\*?|\*\/|\*|\/\/\/?|#|"""|''')/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(clean);
  const s = m?.[1] ?? clean;
  return s.length > MAX_DOC_CHARS ? `${s.slice(0, MAX_DOC_CHARS - 1)}…` : s;
}

export function patternContext(chunk: Chunk): string {
  const lang = LANGUAGE_NAMES[chunk.language] ?? chunk.language;
  const kind = KIND_WORDS[chunk.kind] ?? chunk.kind;
  const where = `${lang} file ${chunk.path} (${pathWords(chunk.path)})`;
  let what: string;
  if (chunk.symbol) {
    const parts = chunk.symbol.split(/\s*[.>]\s*/).filter(Boolean);
    const own = parts[parts.length - 1] ?? chunk.symbol;
    const parents = parts.slice(0, -1);
    what =
      chunk.kind === 'section'
        ? `Section "${chunk.symbol}"`
        : `${capitalize(kind)} ${own} (${identifierWords(own)})${parents.length ? ` in ${parents.join('.')}` : ''}`;
  } else {
    what = chunk.kind === 'window' ? '' : capitalize(kind);
  }
  const lines = `${what ? 'lines' : 'Lines'} ${chunk.startLine}-${chunk.endLine}`;
  let text = `${what ? `${what}, ` : ''}${lines} of ${where}.`;
  if (chunk.doc) {
    const doc = firstSentence(chunk.doc);
    if (doc) text += ` ${doc}`;
  }
  return text.length > MAX_CONTEXT_CHARS ? `${text.slice(0, MAX_CONTEXT_CHARS - 1)}…` : text;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
