import type { SymbolInfo } from '@codesift/core';
import { fileSymbolsOf, type SearchEngine } from '@codesift/search';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { normalizeRelativePath, rejectUnsafePath } from '../path-guard.js';
import { errorResult, errorResultFrom, okResult } from './results.js';

export const getFileOutlineInput = {
  path: z
    .string()
    .min(1)
    .max(4096)
    .describe('File path relative to the indexed root, as search_code or find_symbol return it.'),
};

export const getFileOutlineOutput = {
  path: z.string(),
  symbols: z.array(
    z.object({
      name: z.string(),
      qualified_name: z.string(),
      kind: z.string(),
      start_line: z.number().int(),
      end_line: z.number().int(),
      parent: z.string().nullable(),
      signature: z.string(),
    }),
  ),
};

export const GET_FILE_OUTLINE_DESCRIPTION = [
  'List the symbols a file defines (classes, functions, methods, types, constants, sections), in source order and nested as in the file, each with its kind, signature and line range.',
  'Use it to see what a file contains before reading it, or to pick the one function to read with get_snippet; cheaper than reading the whole file.',
  'Use find_symbol instead when you know a name but not the file, and search_code when you know neither.',
].join(' ');

export function registerGetFileOutline(server: McpServer, engine: SearchEngine): void {
  server.registerTool(
    'get_file_outline',
    {
      title: 'File outline',
      description: GET_FILE_OUTLINE_DESCRIPTION,
      inputSchema: getFileOutlineInput,
      outputSchema: getFileOutlineOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ path }) => {
      const refused = rejectUnsafePath(path);
      if (refused) {
        return errorResult(
          `cannot outline ${JSON.stringify(path)}: ${refused}`,
          'use a path from a search_code or find_symbol result, e.g. "src/index.ts"',
        );
      }
      const file = normalizeRelativePath(path);
      let symbols: SymbolInfo[];
      try {
        symbols = await fileSymbolsOf(engine, file);
        // No symbols: tell a file without any from one the index does not hold.
        if (symbols.length === 0) await engine.getSnippet(file, 1, 1);
      } catch (err) {
        return errorResultFrom(err);
      }
      return okResult(formatOutline(file, symbols), {
        path: file,
        symbols: symbols.map((s) => ({
          name: s.name,
          qualified_name: s.qualifiedName,
          kind: s.kind,
          start_line: s.startLine,
          end_line: s.endLine,
          parent: s.parent,
          signature: s.signature,
        })),
      });
    },
  );
}

/** One line per symbol, indented under the symbols whose line range holds it. */
function formatOutline(file: string, symbols: SymbolInfo[]): string {
  if (symbols.length === 0) {
    return `${file} defines no symbols the index knows of; read it with get_snippet.`;
  }
  const out = [`${file}: ${symbols.length} symbol${symbols.length === 1 ? '' : 's'}`];
  const open: SymbolInfo[] = [];
  for (const s of symbols) {
    while (open.length && open.at(-1)!.endLine < s.startLine) open.pop();
    const signature = s.signature ? `  ${s.signature.split('\n')[0]}` : '';
    out.push(
      `${'  '.repeat(open.length + 1)}${s.startLine}-${s.endLine}  ${s.kind} ${s.name}${signature}`,
    );
    open.push(s);
  }
  out.push('Read one with get_snippet(path, start_line, end_line).');
  return out.join('\n');
}
