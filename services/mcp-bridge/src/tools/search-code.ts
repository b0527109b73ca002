import {
  noEvidenceExplanation,
  type SearchEngine,
  type SearchRequest,
  type SearchResponse,
} from '@codesift/search';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { errorResultFrom, numberLines, okResult } from './results.js';

export const MAX_QUERY_CHARS = 20_000;
export const MAX_LIMIT = 50;

const globList = z.array(z.string().min(1).max(500)).max(50);

export const searchCodeInput = {
  query: z
    .string()
    .min(1)
    .max(MAX_QUERY_CHARS)
    .describe(
      'What to find: a natural-language question ("where are edges added to the graph?"), ' +
        'identifiers (OllamaEmbedder, parse_config), an error message or a pasted stack trace.',
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .default(10)
    .describe(`How many results to return (1-${MAX_LIMIT}, default 10).`),
  language: z
    .string()
    .min(1)
    .max(40)
    .optional()
    .describe(
      'Only this language, e.g. "typescript", "python", "go", "rust", "java", "markdown" ' +
        '(aliases such as "ts", "py", "golang" work; an unknown language is an error listing the known ones).',
    ),
  languages: z
    .array(z.string().min(1).max(40))
    .max(20)
    .optional()
    .describe('Only these languages (combined with `language`).'),
  path_include: globList
    .optional()
    .describe(
      'Only paths matching any of these globs, relative to the indexed root, e.g. ["src/**"] (or ["<repository>/**"] for one repository of many).',
    ),
  path_exclude: globList
    .optional()
    .describe('Drop paths matching any of these globs, e.g. ["**/*.test.ts", "docs/**"].'),
  files_only: z
    .boolean()
    .default(false)
    .describe('One result per file (its best-matching chunk): use it to find which files matter.'),
  fusion: z
    .enum(['rrf', 'linear'])
    .optional()
    .describe(
      'How keyword and semantic rankings are combined: "linear" (default, score blend) or ' +
        '"rrf" (reciprocal rank fusion, steadier when the two sides disagree).',
    ),
  rewrite: z
    .enum(['auto', 'on', 'off'])
    .optional()
    .describe(
      'LLM query rewrite where the server has a model configured: "auto" (default) translates ' +
        'natural-language questions into the repository\'s identifiers, "on" short keyword queries too, ' +
        '"off" never. Identifiers and stack traces are never rewritten.',
    ),
  variants: z
    .number()
    .int()
    .min(0)
    .max(8)
    .optional()
    .describe(
      'Search the query as up to this many views of itself, in parallel, merged per chunk ' +
        '(default 3: a pasted bug report is also searched by its summary line and by the code it ' +
        'names; a short query has no such views). 0 or 1 turns it off.',
    ),
};

const resultSchema = z.object({
  path: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  symbol: z.string().nullable(),
  kind: z.string(),
  language: z.string(),
  score: z.number(),
  snippet: z.string(),
  snippet_start_line: z.number().int(),
  stale: z
    .boolean()
    .describe(
      'True when the file changed since it was indexed: the lines and snippet may be out of date, and get_snippet serves it again once it is re-indexed.',
    ),
});

export const searchCodeOutput = {
  query: z.string(),
  fusion: z.enum(['rrf', 'linear']),
  results: z.array(resultSchema),
  degraded: z
    .array(z.string())
    .describe('Search backends that failed or timed out; results were built without them.'),
  total_chunks: z.number().int(),
};

type SearchCodeArgs = z.infer<z.ZodObject<typeof searchCodeInput>>;

export const SEARCH_CODE_DESCRIPTION = [
  'Search the indexed codebase with natural language, identifiers or error text (hybrid keyword + semantic ranking).',
  'Returns ranked results, best first: file path with line range (path:start-end), enclosing symbol, kind, language, score and the most relevant lines of code.',
  'Use it first when you do not know where something lives.',
  'Narrow with language/languages, path_include/path_exclude globs, or files_only to list files rather than chunks.',
  'Use find_symbol when you know the exact name of a definition, and get_snippet to read more lines around a result.',
  'A result marked stale comes from a file edited since it was indexed: its line numbers may be off.',
].join(' ');

export function registerSearchCode(
  server: McpServer,
  engine: SearchEngine,
  options: { deadlineMs?: number } = {},
): void {
  server.registerTool(
    'search_code',
    {
      title: 'Search code',
      description: SEARCH_CODE_DESCRIPTION,
      inputSchema: searchCodeInput,
      outputSchema: searchCodeOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      let response: SearchResponse;
      try {
        response = await engine.search(toSearchRequest(args, extra.signal, options.deadlineMs));
      } catch (err) {
        return errorResultFrom(err);
      }
      return okResult(formatSearch(response, args), {
        query: response.query,
        fusion: response.fusion,
        results: response.results.map((r) => ({
          path: r.path,
          start_line: r.startLine,
          end_line: r.endLine,
          symbol: r.symbol,
          kind: r.kind,
          language: r.language,
          score: r.score,
          snippet: r.snippet,
          snippet_start_line: r.snippetStartLine,
          stale: r.stale === true,
        })),
        degraded: response.degraded,
        total_chunks: response.totalChunks,
      });
    },
  );
}

export function toSearchRequest(
  args: SearchCodeArgs,
  signal?: AbortSignal,
  deadlineMs?: number,
): SearchRequest {
  const languages = [...(args.language ? [args.language] : []), ...(args.languages ?? [])].map(
    (l) => l.toLowerCase(),
  );
  const filter: NonNullable<SearchRequest['filter']> = {};
  if (languages.length) filter.languages = [...new Set(languages)];
  if (args.path_include?.length) filter.include = args.path_include;
  if (args.path_exclude?.length) filter.exclude = args.path_exclude;
  const request: SearchRequest = {
    query: args.query,
    limit: args.limit,
    collapseFiles: args.files_only,
  };
  if (Object.keys(filter).length) request.filter = filter;
  if (args.fusion) request.fusion = args.fusion;
  if (args.rewrite) request.rewrite = args.rewrite;
  if (args.variants !== undefined) request.variants = args.variants;
  if (signal) request.signal = signal;
  if (deadlineMs !== undefined) request.deadlineMs = deadlineMs;
  return request;
}

function formatSearch(response: SearchResponse, args: SearchCodeArgs): string {
  const q = JSON.stringify(clip(args.query, 200));
  const filtered =
    args.language ||
    args.languages?.length ||
    args.path_include?.length ||
    args.path_exclude?.length;
  const out: string[] = [];
  if (response.results.length === 0) {
    out.push(`No results for ${q}.`);
    // Matches were found and refused (the minimum-evidence rule): an agent should
    // not retry with the same made-up name, nor take a near miss for the answer.
    const why = noEvidenceExplanation(response.plan);
    if (why !== null) out.push(`${why[0]!.toUpperCase()}${why.slice(1)}.`);
    out.push(
      filtered
        ? 'Try removing the language or path filters, or use other words.'
        : 'Try other words, an identifier that appears in the code, or a shorter query; ' +
            'find_symbol looks up definitions by exact name.',
    );
  } else {
    const unit = args.files_only ? 'file' : 'result';
    const plural = response.results.length === 1 ? '' : 's';
    out.push(`${response.results.length} ${unit}${plural} for ${q} (best first):`);
    response.results.forEach((r, i) => {
      const symbol = r.symbol ? `  ${r.symbol}` : '';
      out.push('');
      out.push(
        `${i + 1}. ${r.path}:${r.startLine}-${r.endLine}${symbol}  [${r.kind}, ${r.language}, score ${r.score.toFixed(3)}]${r.stale ? '  STALE' : ''}`,
      );
      if (r.snippet.trim()) out.push(indent(numberLines(r.snippet, r.snippetStartLine), '   '));
    });
    out.push('');
    out.push('Read more of a result with get_snippet(path, start_line, end_line).');
    if (response.results.some((r) => r.stale)) {
      out.push(
        'STALE: the file changed since it was indexed and has not been re-indexed yet; its lines may have moved. ' +
          'Search again in a moment: get_snippet serves it once it is re-indexed.',
      );
    }
  }
  if (response.degraded.length) {
    out.push(`Note: partial results, some backends failed: ${response.degraded.join('; ')}.`);
  }
  return out.join('\n');
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((l) => prefix + l)
    .join('\n');
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
