import type { SymbolInfo } from '@codesift/core';
import type {
  IndexStatusInfo,
  SearchEngine,
  SearchRequest,
  SearchResponse,
} from '@codesift/search';

/**
 * A SearchEngine for transport tests: records what it was asked, answers
 * from fixed data, and lets a test make `search` fail or hang until its
 * signal fires (to test deadlines and cancellation).
 */
export interface FakeEngine extends SearchEngine {
  requests: SearchRequest[];
  /** Set to make the next searches throw it. */
  fail: unknown;
  /** Make searches wait for their signal before answering. */
  hang: boolean;
  /** Make searches use up most of their deadlineMs, then answer with the vector side dropped. */
  slowSide: boolean;
  /** Resolves with the abort reason each time a hanging search sees its signal fire. */
  aborted: Promise<unknown>;
  closed: boolean;
}

export const SYMBOL: SymbolInfo = {
  id: 'sym-1',
  name: 'addEdge',
  qualifiedName: 'Graph.addEdge',
  kind: 'method',
  path: 'src/graph.ts',
  language: 'typescript',
  startLine: 5,
  endLine: 9,
  parent: 'Graph',
  signature: 'addEdge(a: string, b: string): void',
  doc: 'Inserts an edge from a to b.',
};

export const STATUS: IndexStatusInfo = {
  root: '/repo',
  repositories: [],
  indexPath: '/repo/.codesift/index.db',
  files: 3,
  chunks: 42,
  symbols: 7,
  vectors: 42,
  embedder: 'test:hash-16',
  dimensions: 16,
  updatedAt: 1_700_000_000_000,
  bytes: 4096,
};

export function fakeEngine(): FakeEngine {
  let onAbort: (reason: unknown) => void = () => {};
  const engine: FakeEngine = {
    requests: [],
    fail: undefined,
    hang: false,
    slowSide: false,
    aborted: new Promise((r) => {
      onAbort = r;
    }),
    closed: false,
    async search(request) {
      engine.requests.push(request);
      if (engine.fail !== undefined) throw engine.fail;
      if (engine.hang) {
        await new Promise<void>((_resolve, reject) => {
          const signal = request.signal;
          if (!signal) return;
          signal.addEventListener('abort', () => {
            onAbort(signal.reason);
            reject(signal.reason);
          });
        });
      }
      if (engine.slowSide && request.deadlineMs !== undefined) {
        await new Promise((r) => setTimeout(r, (request.deadlineMs ?? 0) * 0.9));
        return { ...answer(request), degraded: ['vector: timeout'] };
      }
      return answer(request);
    },
    async lookupSymbol(name, options) {
      if (engine.fail !== undefined) throw engine.fail;
      const all = name === SYMBOL.name ? [SYMBOL] : [];
      return all.filter((s) => !options?.kind || s.kind === options.kind);
    },
    async vocabulary(options) {
      const all = [
        { name: 'addEdge', count: 3 },
        { name: 'Graph', count: 2 },
        { name: 'slugify', count: 1 },
      ];
      return all
        .filter((v) => !options?.prefix || v.name.startsWith(options.prefix))
        .slice(0, options?.limit ?? 100);
    },
    async status() {
      if (engine.fail !== undefined) throw engine.fail;
      return { ...STATUS };
    },
    async getSnippet(path, startLine, endLine) {
      return { path, startLine, endLine, language: 'typescript', text: '' };
    },
    async close() {
      engine.closed = true;
    },
  };
  return engine;
}

function answer(request: SearchRequest): SearchResponse {
  return {
    query: request.query,
    fusion: request.fusion ?? 'linear',
    results: [
      {
        chunkId: 'chunk-1',
        path: 'src/graph.ts',
        startLine: 5,
        endLine: 9,
        symbol: 'Graph.addEdge',
        kind: 'method',
        language: 'typescript',
        score: 0.9,
        snippet: 'addEdge(a: string, b: string): void {',
        snippetStartLine: 6,
        ...(request.explain
          ? {
              explain: { keyword: 3.5, keywordRank: 1, vector: null, vectorRank: null, fused: 0.9 },
            }
          : {}),
      },
      {
        chunkId: 'chunk-2',
        path: 'README.md',
        startLine: 1,
        endLine: 3,
        symbol: null,
        kind: 'section',
        language: 'markdown',
        score: 0.4,
        snippet: '# Demo',
        snippetStartLine: 1,
      },
    ].slice(0, request.limit ?? 10),
    timings: { analyze: 0.1, keyword: 1.5, total: 2 },
    degraded: request.keywordOnly ? [] : ['vector: no embedder'],
    totalChunks: 42,
  };
}
