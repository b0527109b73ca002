import { CodesiftError, type SymbolInfo } from '@codesift/core';
import type {
  IndexStatusInfo,
  SearchEngine,
  SearchRequest,
  SearchResponse,
  SearchResult,
  Snippet,
} from '@codesift/search';

/**
 * A SearchEngine over a few in-memory files, for tool tests. It records every
 * call, and `fail` makes the next call of a method throw.
 */
export class FakeEngine implements SearchEngine {
  readonly calls: { method: string; args: unknown[] }[] = [];
  results: SearchResult[] = [];
  symbols: SymbolInfo[] = [];
  vocab: { name: string; count: number }[] = [];
  degraded: string[] = [];
  /** The plan search answers with; none unless a test sets one. */
  plan: SearchResponse['plan'];
  fail: Partial<Record<keyof SearchEngine, unknown>> = {};
  closed = false;

  /** Files getSnippet reports as changed since they were indexed. */
  readonly staleFiles = new Set<string>();

  constructor(readonly files: Record<string, string> = {}) {}

  private record(method: keyof SearchEngine, ...args: unknown[]): void {
    this.calls.push({ method, args });
    const error = this.fail[method];
    if (error !== undefined) {
      delete this.fail[method];
      throw error;
    }
  }

  callsOf(method: keyof SearchEngine): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  async search(request: SearchRequest): Promise<SearchResponse> {
    this.record('search', request);
    return {
      query: request.query,
      results: this.results.slice(0, request.limit ?? 10),
      fusion: request.fusion ?? 'linear',
      timings: { total: 1 },
      degraded: this.degraded,
      totalChunks: 42,
      ...(this.plan ? { plan: this.plan } : {}),
    };
  }

  async lookupSymbol(
    name: string,
    options?: { kind?: string; limit?: number },
  ): Promise<SymbolInfo[]> {
    this.record('lookupSymbol', name, options);
    return this.symbols.filter(
      (s) =>
        (s.name === name || s.qualifiedName === name) &&
        (!options?.kind || s.kind === options.kind),
    );
  }

  async fileSymbols(path: string): Promise<SymbolInfo[]> {
    this.record('fileSymbols', path);
    return this.symbols
      .filter((s) => s.path === path)
      .sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
  }

  async vocabulary(options?: {
    prefix?: string;
    limit?: number;
  }): Promise<{ name: string; count: number }[]> {
    this.record('vocabulary', options);
    return this.vocab.filter((v) => v.name.startsWith(options?.prefix ?? ''));
  }

  async status(): Promise<IndexStatusInfo> {
    this.record('status');
    return {
      root: '/repo',
      repositories: [],
      indexPath: '/repo/.codesift/index.db',
      files: Object.keys(this.files).length,
      chunks: 10,
      symbols: this.symbols.length,
      vectors: 0,
      embedder: null,
      dimensions: null,
      updatedAt: Date.UTC(2025, 0, 2, 3, 4, 5),
      bytes: 4096,
    };
  }

  async getSnippet(path: string, startLine: number, endLine: number): Promise<Snippet> {
    this.record('getSnippet', path, startLine, endLine);
    const text = this.files[path];
    if (text === undefined) {
      throw new CodesiftError('INVALID_ARGUMENT', `file not in the index: ${path}`, {
        hint: 'use a path from a search result',
      });
    }
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const end = Math.min(endLine, lines.length);
    return {
      path,
      startLine,
      endLine: end,
      language: 'typescript',
      // The engine serves nothing of a file that is no longer what it indexed.
      ...(this.staleFiles.has(path)
        ? { text: '', stale: true }
        : { text: lines.slice(startLine - 1, end).join('\n') }),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

export function result(overrides: Partial<SearchResult> = {}): SearchResult {
  return {
    chunkId: 'c1',
    path: 'src/graph.ts',
    startLine: 3,
    endLine: 9,
    symbol: 'Graph.addEdge',
    kind: 'method',
    language: 'typescript',
    score: 0.9,
    snippet: '  addEdge(a: string, b: string): void {\n    this.edges.push([a, b]);',
    snippetStartLine: 4,
    ...overrides,
  };
}

export function symbol(overrides: Partial<SymbolInfo> = {}): SymbolInfo {
  return {
    id: 's1',
    name: 'addEdge',
    qualifiedName: 'Graph.addEdge',
    kind: 'method',
    path: 'src/graph.ts',
    language: 'typescript',
    startLine: 3,
    endLine: 9,
    parent: 'Graph',
    signature: 'addEdge(a: string, b: string): void',
    doc: 'Adds an edge from a to b.',
    ...overrides,
  };
}
