// Each MCP tool call as a span (`mcp.tool <name>`), active while the engine
// works, so the search fan-out (local engine) or the gRPC call to the query
// service (remote engine) nests under it in one trace. With no OpenTelemetry
// SDK registered the API is a no-op and this costs nothing.
import { fileSymbolsOf, type SearchEngine } from '@codesift/search';
import { type Span, SpanStatusCode, trace } from '@opentelemetry/api';

/** The tool each engine method answers. */
const TOOLS = {
  search: 'search_code',
  lookupSymbol: 'find_symbol',
  fileSymbols: 'get_file_outline',
  getSnippet: 'get_snippet',
  status: 'index_status',
  vocabulary: 'vocabulary',
} as const;

function inSpan<T>(method: keyof typeof TOOLS, fn: () => Promise<T>): Promise<T> {
  const tool = TOOLS[method];
  // Looked up per call, not at load: an SDK registered later (through another
  // copy of the API) is only found through the global.
  return trace
    .getTracer('@codesift/mcp-bridge')
    .startActiveSpan(`mcp.tool ${tool}`, { attributes: { 'mcp.tool': tool } }, (span: Span) =>
      fn().then(
        (value) => {
          span.end();
          return value;
        },
        (err: unknown) => {
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: err instanceof Error ? err.message : String(err),
          });
          span.end();
          throw err;
        },
      ),
    );
}

export function tracedEngine(engine: SearchEngine): SearchEngine {
  return {
    search: (request) => inSpan('search', () => engine.search(request)),
    lookupSymbol: (name, options) =>
      inSpan('lookupSymbol', () => engine.lookupSymbol(name, options)),
    fileSymbols: (p) => inSpan('fileSymbols', () => fileSymbolsOf(engine, p)),
    vocabulary: (options) => inSpan('vocabulary', () => engine.vocabulary(options)),
    status: () => inSpan('status', () => engine.status()),
    getSnippet: (p, start, end) => inSpan('getSnippet', () => engine.getSnippet(p, start, end)),
    close: () => engine.close(),
  };
}
