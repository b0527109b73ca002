/**
 * The query parser: user text in, a typed ParsedQuery out. Pure, never
 * throws, linear in the input length.
 *
 * Syntax:
 * - `"exact words"` and `'exact words'` are phrases (a single quote opens a
 *   phrase only at the start of a word, so `don't` stays a word; an
 *   unclosed quote is ignored). Typographic quotes work too.
 * - Filters, at the start of a word: `lang:go`, `language:python`,
 *   `lang:ts,py` (aliases resolved), `path:src/**`, `file:` (an alias of
 *   `path:`, as in Sourcegraph), and `-path:` / `-file:` / `-lang:` to
 *   exclude; a value may be quoted (`path:"my dir/**"`). Any other
 *   `key:value` is ordinary text. Filters are cut out of `text`.
 * - Stack traces and error lines are detected first (see trace.ts) and
 *   reduced to their signals; everything else is split into terms, each
 *   with its shape (see shape.ts). Backticks are treated as spaces, so
 *   markdown code spans (`addEdge`) give their identifier.
 */
import type { OwnFrames } from '../trace/block-node.js';
import { detectTraces } from '../trace/trace.js';
import type { ParsedQuery, QueryFilters, QueryNode, TermNode } from '../types.js';
import { IDENTIFIER_SHAPES } from './shape.js';
import { computeSpecificity } from './specificity.js';
import { tokenize } from './tokenize.js';

function collectTerms(nodes: readonly QueryNode[]): TermNode[] {
  const out: TermNode[] = [];
  for (const n of nodes) {
    if (n.kind === 'term') out.push(n);
    else if (n.kind === 'phrase' || n.kind === 'trace') out.push(...n.terms);
  }
  return out;
}

function collectFilters(nodes: readonly QueryNode[]): QueryFilters {
  const f: QueryFilters = { languages: [], excludeLanguages: [], include: [], exclude: [] };
  const add = (list: string[], v: string): void => {
    if (!list.includes(v)) list.push(v);
  };
  for (const n of nodes) {
    if (n.kind !== 'filter') continue;
    const list =
      n.field === 'language'
        ? n.negated
          ? f.excludeLanguages
          : f.languages
        : n.negated
          ? f.exclude
          : f.include;
    for (const v of n.values) add(list, v);
  }
  return f;
}

/** The input with filter spans cut out; the pieces around a cut are joined by one space. */
function textWithoutFilters(input: string, nodes: readonly QueryNode[]): string {
  const pieces: string[] = [];
  let at = 0;
  for (const n of nodes) {
    if (n.kind !== 'filter') continue;
    pieces.push(input.slice(at, n.start).trim());
    at = n.end;
  }
  if (at === 0) return input.trim();
  pieces.push(input.slice(at).trim());
  return pieces.filter((p) => p !== '').join(' ');
}

function collectAnchors(nodes: readonly QueryNode[], terms: readonly TermNode[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const add = (v: string): void => {
    if (v === '' || seen.has(v)) return;
    seen.add(v);
    out.push(v);
  };
  // Phrases first: a quoted string is the most explicit anchor a user can give.
  for (const n of nodes) if (n.kind === 'phrase') add(n.value.trim());
  for (const t of terms) {
    if (t.stop) continue;
    // A frame's function or file and an error's type are exact names whatever their spelling.
    if (IDENTIFIER_SHAPES.has(t.shape) || (t.trace !== undefined && t.trace !== 'message')) {
      add(t.value);
    }
  }
  return out;
}

/** What the caller knows of the searched repository that changes how a query reads. */
export interface ParseContext {
  /** Trace frames printed from an installed copy that are the repository's own files (block-node.ts). */
  ownFrames?: OwnFrames;
}

/** Parses a query (see the module comment). Never throws. */
export function parseQuery(input: string, context: ParseContext = {}): ParsedQuery {
  const text = typeof input === 'string' ? input : String(input ?? '');
  const traces = detectTraces(text, context.ownFrames);
  const nodes: QueryNode[] = [];
  let at = 0;
  const opts = { filters: true, phrases: true };
  for (const t of traces) {
    if (t.start > at) tokenize(text, at, t.start, opts, nodes);
    nodes.push(t);
    at = t.end;
  }
  if (at < text.length) tokenize(text, at, text.length, opts, nodes);
  const terms = collectTerms(nodes);
  const { specificity, isIdentifierOnly } = computeSpecificity(nodes);
  return {
    input: text,
    nodes,
    terms,
    filters: collectFilters(nodes),
    text: textWithoutFilters(text, nodes),
    specificity,
    isIdentifierOnly,
    hasTrace: traces.length > 0,
    anchors: collectAnchors(nodes, terms),
  };
}
