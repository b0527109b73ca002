import { type Chunk, chunkId, errorMessage, type SymbolInfo, symbolId } from '@codesift/core';
import { type Node, Parser, type Tree } from 'web-tree-sitter';
import { recognizeDeclarations } from './braces/recognizer.js';
import {
  type Grammar,
  GrammarCache,
  type GrammarCacheOptions,
  initTreeSitter,
} from './grammars.js';
import { braceLanguage, languageSpec } from './languages/index.js';
import { SourceLines } from './lines.js';
import { findHeadings, markdownPieces } from './markdown.js';
import type { Limits, Piece } from './pieces.js';
import { recoveryText } from './preprocessor.js';
import { type DefNode, extractDefs } from './symbols.js';
import { layoutDefs } from './tree-chunker.js';
import { windowPieces } from './windows.js';

export interface ChunkerOptions {
  /** Default 80: larger units are split with overlap. */
  maxChunkLines?: number;
  /** Default 3000: also split above this. */
  maxChunkChars?: number;
  /** Default 8. */
  overlapLines?: number;
  /** Default 6: adjacent tiny siblings (same parent) are merged up to maxChunkLines. */
  minChunkLines?: number;
  /** Default 60 for the line-window fallback (overlap overlapLines). */
  windowLines?: number;
  /** Default 5000: a parse taking longer is abandoned and the file gets line windows. */
  parseTimeoutMs?: number;
  /** Grammar loading: a .wasm per language instead of the package's, where warnings go. */
  grammars?: GrammarCacheOptions;
}

export interface ChunkInput {
  path: string;
  language: string;
  text: string;
}

export interface ChunkResult {
  chunks: Chunk[];
  symbols: SymbolInfo[];
  /**
   * Set when the file's language should have AST chunks but got line windows
   * (kind 'window', no symbols): its grammar failed to load, or the brace
   * recognizer that stands in for a missing one failed on it. Says why, for the index summary.
   */
  noAst?: string;
  /**
   * Set when the file's language has no grammar and its chunks and symbols
   * come from the brace recognizer (keywords and braces, no syntax tree):
   * says so and why, for the index summary.
   */
  structural?: string;
}

export interface Chunker {
  /** True when structural (tree-sitter) chunking applies. */
  supports(language: string): boolean;
  /** Synchronous; never throws on bad input (falls back to windows). */
  chunkFile(input: ChunkInput): ChunkResult;
  /**
   * Gets ready for these files' languages before a change needs them: loads
   * each grammar (its .wasm compiled asynchronously), then chunks the sample
   * once, discarding the result, so that the parser's code has run (V8
   * compiles WebAssembly functions lazily, on their first call). One
   * language at a time, yielding between them, so a server warming up keeps
   * answering. Resolves with the languages warmed; never rejects.
   */
  warm?(samples: readonly ChunkInput[]): Promise<string[]>;
}

function positiveInt(value: number | undefined, fallback: number, min = 1): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min
    ? Math.floor(value)
    : fallback;
}

function resolveLimits(options: ChunkerOptions): Limits {
  const maxChunkLines = positiveInt(options.maxChunkLines, 80);
  return {
    maxChunkLines,
    maxChunkChars: positiveInt(options.maxChunkChars, 3000, 16),
    overlapLines: Math.min(positiveInt(options.overlapLines, 8, 0), maxChunkLines - 1),
    minChunkLines: positiveInt(options.minChunkLines, 6, 0),
    windowLines: positiveInt(options.windowLines, 60),
  };
}

/**
 * Creates a chunker. The tree-sitter runtime is initialized here; grammars
 * are loaded synchronously on first use of their language and cached, as are
 * their queries and the parser.
 */
export async function createChunker(options: ChunkerOptions = {}): Promise<Chunker> {
  await initTreeSitter();
  return new TreeSitterChunker(
    resolveLimits(options),
    positiveInt(options.parseTimeoutMs, 5000),
    new GrammarCache(options.grammars),
  );
}

class TreeSitterChunker implements Chunker {
  private parser: Parser | null = null;
  private parserGrammar: Grammar | null = null;

  constructor(
    private readonly limits: Limits,
    private readonly parseTimeoutMs: number,
    private readonly grammars: GrammarCache,
  ) {}

  supports(language: string): boolean {
    return languageSpec(language) !== undefined;
  }

  async warm(samples: readonly ChunkInput[]): Promise<string[]> {
    const warmed: string[] = [];
    for (const sample of samples) {
      if (!this.supports(sample.language)) continue;
      await this.grammars.warm(sample.language);
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.chunkFile(sample);
      warmed.push(sample.language);
    }
    return warmed;
  }

  chunkFile(input: ChunkInput): ChunkResult {
    const path = String(input?.path ?? '');
    const language = String(input?.language ?? 'text');
    const text = typeof input?.text === 'string' ? input.text : '';
    let lines: SourceLines | null = null;
    try {
      lines = new SourceLines(text);
      return this.chunkLines(path, language, lines);
    } catch {
      try {
        lines ??= new SourceLines(text);
        return {
          chunks: toChunks(windowPieces(lines, this.limits), lines, path, language),
          symbols: [],
        };
      } catch {
        return { chunks: [], symbols: [] };
      }
    }
  }

  private chunkLines(path: string, detected: string, lines: SourceLines): ChunkResult {
    if (lines.count === 0) return { chunks: [], symbols: [] };
    // An ambiguous extension (`.h`) is settled by the text; chunks carry the result.
    const language = languageSpec(detected)?.refineLanguage?.(path, lines.text) ?? detected;
    const windows = (): ChunkResult => ({
      chunks: toChunks(windowPieces(lines, this.limits), lines, path, language),
      symbols: [],
    });
    if (looksMinified(lines, this.limits)) return windows();

    if (language === 'markdown') {
      const headings = findHeadings(lines);
      const symbols = headings.map(
        (h): SymbolInfo => ({
          id: symbolId(path, h.path, h.line),
          name: h.text,
          qualifiedName: h.path,
          kind: 'section',
          path,
          language,
          startLine: h.line,
          endLine: Math.max(h.line, lines.trim(h.line, h.subtreeEnd)?.[1] ?? h.line),
          parent: h.parent,
          signature: lines.slice(h.line, h.line).trim(),
          doc: '',
        }),
      );
      return {
        chunks: toChunks(markdownPieces(lines, headings, this.limits), lines, path, language),
        symbols,
      };
    }

    if (!this.supports(language)) {
      const braces = braceLanguage(language);
      if (braces) {
        let defs: DefNode[];
        try {
          defs = recognizeDeclarations(lines, braces);
        } catch (err) {
          // Never a silent downgrade: the file says it got windows, and why.
          return { ...windows(), noAst: `the brace recognizer failed: ${errorMessage(err)}` };
        }
        return {
          chunks: toChunks(layoutDefs(defs, lines, this.limits), lines, path, language),
          symbols: toSymbols(defs, path, language),
          structural: `${STRUCTURAL_NOTE}: ${braces.reason}`,
        };
      }
      return windows();
    }
    const grammar = this.grammars.get(language);
    if (!grammar) return { ...windows(), noAst: this.grammars.failure(language) ?? 'no grammar' };
    const defs = this.parseDefs(grammar, lines.text);
    if (!defs) return windows();
    return {
      chunks: toChunks(layoutDefs(defs, lines, this.limits), lines, path, language),
      symbols: toSymbols(defs, path, language),
    };
  }

  /** Definitions of the file, or null when parsing failed or ran out of time. */
  private parseDefs(grammar: Grammar, text: string): DefNode[] | null {
    const deadline = performance.now() + this.parseTimeoutMs;
    let tree = this.parse(grammar, text, deadline);
    if (!tree) return null;
    if (grammar.spec.preprocessor && tree.rootNode.hasError) {
      const retext = recoveryText(text, tree.rootNode);
      const second = retext === null ? null : this.parse(grammar, retext, deadline);
      if (second && errorCount(second.rootNode) < errorCount(tree.rootNode)) {
        tree.delete();
        tree = second;
      } else {
        second?.delete();
      }
    }
    try {
      // Always the original text: a recovery parse only blanked characters in place.
      return extractDefs(tree.rootNode, grammar, text);
    } finally {
      tree.delete();
    }
  }

  private parse(grammar: Grammar, text: string, deadline: number): Tree | null {
    const parser = this.parserFor(grammar);
    let tree: Tree | null = null;
    try {
      tree = parser.parse(text, null, { progressCallback: () => performance.now() > deadline });
    } catch {
      tree = null;
    }
    // A cancelled parse would otherwise resume on the next file.
    if (!tree) parser.reset();
    return tree;
  }

  private parserFor(grammar: Grammar): Parser {
    if (!this.parser) this.parser = new Parser();
    if (this.parserGrammar !== grammar) {
      this.parser.setLanguage(grammar.language);
      this.parserGrammar = grammar;
    }
    return this.parser;
  }
}

/**
 * Minified or generated one-liners have no line structure worth parsing:
 * nearly all their text sits on lines far over the chunk budget. A normal
 * file with one huge literal keeps its structure (the line is sliced).
 */
function looksMinified(lines: SourceLines, limits: Limits): boolean {
  const { longest, charsInLong } = lines.longLines(limits.maxChunkChars);
  return longest > 2 * limits.maxChunkChars && charsInLong > 0.8 * lines.text.length;
}

/** What a file chunked by the brace recognizer is told, before why it has no grammar. */
const STRUCTURAL_NOTE =
  'chunked by the brace recognizer (declarations by keyword, bodies by brace matching, no syntax tree)';

const NON_BLANK = /\S/;

function toChunks(pieces: Piece[], lines: SourceLines, path: string, language: string): Chunk[] {
  const chunks: Chunk[] = [];
  for (const p of pieces) {
    const content = lines.text.slice(p.from, p.to);
    if (!NON_BLANK.test(content)) continue;
    const chunk: Chunk = {
      id: chunkId(path, p.start, p.end, content),
      path,
      language,
      startLine: p.start,
      endLine: p.end,
      symbol: p.symbol,
      kind: p.kind,
      content,
    };
    if (p.signature) chunk.signature = p.signature;
    if (p.doc) chunk.doc = p.doc;
    chunks.push(chunk);
  }
  return chunks;
}

function toSymbols(defs: readonly DefNode[], path: string, language: string): SymbolInfo[] {
  const out: SymbolInfo[] = [];
  const visit = (def: DefNode) => {
    out.push({
      id: symbolId(path, def.qualifiedName, def.declStart),
      name: def.name,
      qualifiedName: def.qualifiedName,
      kind: def.kind,
      path,
      language,
      startLine: def.declStart,
      endLine: def.endLine,
      parent: def.parent,
      signature: def.signature,
      doc: def.doc,
    });
    for (const child of def.children) visit(child);
  };
  for (const def of defs) visit(def);
  return out;
}

/** ERROR and MISSING nodes in a tree (only subtrees that have errors are walked). */
function errorCount(node: Node): number {
  if (node.type === 'ERROR' || node.isMissing) return 1 + childErrors(node);
  return node.hasError ? childErrors(node) : 0;
}

function childErrors(node: Node): number {
  let n = 0;
  for (const child of node.children) n += errorCount(child);
  return n;
}
