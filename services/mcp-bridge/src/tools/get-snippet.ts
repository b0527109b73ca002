import type { SearchEngine, Snippet } from '@codesift/search';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { normalizeRelativePath, rejectUnsafePath } from '../path-guard.js';
import { errorResult, errorResultFrom, numberLines, okResult } from './results.js';

/** Most lines one call returns; longer requests are cut and say where to go on. */
export const MAX_SNIPPET_LINES = 400;
const DEFAULT_SPAN = 60;

export const getSnippetInput = {
  path: z
    .string()
    .min(1)
    .max(4096)
    .describe(
      'File path relative to the indexed root, exactly as search_code or find_symbol return it.',
    ),
  start_line: z.number().int().min(1).describe('First line to read (1-based).'),
  end_line: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      `Last line to read, inclusive (default start_line + ${DEFAULT_SPAN - 1}); ` +
        `at most ${MAX_SNIPPET_LINES} lines per call.`,
    ),
};

export const getSnippetOutput = {
  path: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  language: z.string(),
  text: z.string(),
  truncated: z
    .boolean()
    .describe(`True when the request spanned more than ${MAX_SNIPPET_LINES} lines and was cut.`),
  stale: z
    .boolean()
    .describe(
      'True when the file is no longer what the index holds (edited or replaced since it was indexed): no text is served until it is re-indexed.',
    ),
};

export const GET_SNIPPET_DESCRIPTION = [
  'Read lines of an indexed file, with line numbers.',
  'Use it after search_code or find_symbol to see a whole function, the code around a match, or the imports at the top of a file.',
  `Pass the path relative to the indexed root and a line range (at most ${MAX_SNIPPET_LINES} lines per call; the range is clamped to the file's length).`,
  'Absolute paths and paths with .. are refused.',
].join(' ');

export function registerGetSnippet(
  server: McpServer,
  engine: SearchEngine,
  options: { maxLines?: number } = {},
): void {
  const maxLines = options.maxLines ?? MAX_SNIPPET_LINES;
  server.registerTool(
    'get_snippet',
    {
      title: 'Read file lines',
      description: GET_SNIPPET_DESCRIPTION,
      inputSchema: getSnippetInput,
      outputSchema: getSnippetOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ path, start_line, end_line }) => {
      const refused = rejectUnsafePath(path);
      if (refused) {
        return errorResult(
          `cannot read ${JSON.stringify(path)}: ${refused}`,
          'use a path from a search_code or find_symbol result, e.g. "src/index.ts"',
        );
      }
      const wantedEnd = end_line ?? start_line + DEFAULT_SPAN - 1;
      if (wantedEnd < start_line) {
        return errorResult(`end_line (${wantedEnd}) is before start_line (${start_line})`);
      }
      const truncated = wantedEnd - start_line + 1 > maxLines;
      const end = truncated ? start_line + maxLines - 1 : wantedEnd;
      let snippet: Snippet;
      try {
        snippet = await engine.getSnippet(normalizeRelativePath(path), start_line, end);
      } catch (err) {
        return errorResultFrom(err);
      }
      const header = `${snippet.path}:${snippet.startLine}-${snippet.endLine} (${snippet.language})`;
      const stale = snippet.stale === true;
      const body = stale
        ? "[STALE: the file changed since it was indexed; its lines are served again once it is re-indexed (codesift index, or the MCP server's watch)]"
        : snippet.text === ''
          ? '(no lines in this range)'
          : numberLines(snippet.text, snippet.startLine);
      const more = truncated
        ? `\n[cut at ${maxLines} lines; continue with start_line ${snippet.endLine + 1}]`
        : '';
      return okResult(`${header}\n${body}${more}`, {
        path: snippet.path,
        start_line: snippet.startLine,
        end_line: snippet.endLine,
        language: snippet.language,
        text: stale ? '' : snippet.text,
        truncated,
        stale,
      });
    },
  );
}
