import type { SymbolInfo } from '@codesift/core';
import type { SearchEngine } from '@codesift/search';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { errorResultFrom, okResult } from './results.js';

/** Chunks the keyword search may return; their files are the candidates read line by line. */
const CANDIDATE_CHUNKS = 100;
/** Files read at most, best-ranked first. */
const MAX_FILES = 40;
/** Lines read per getSnippet call (the engine's own cap). */
const PAGE_LINES = 2000;
const MAX_LINE_CHARS = 200;

export const findReferencesInput = {
  name: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*$/u, 'an identifier')
    .describe(
      'Identifier to find uses of, e.g. "addEdge" (a qualified "Graph.addEdge" looks for "addEdge").',
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(200)
    .default(50)
    .describe('How many lines to return (1-200, default 50).'),
};

export const findReferencesOutput = {
  name: z.string(),
  references: z.array(
    z.object({
      path: z.string(),
      line: z.number().int(),
      text: z.string(),
      definition: z.boolean().describe('True on the line where find_symbol says it is defined.'),
    }),
  ),
  truncated: z.boolean().describe('True when more lines matched than limit.'),
};

export const FIND_REFERENCES_DESCRIPTION = [
  'List the lines where an identifier appears as a whole word (calls, imports, type uses, its definition), grouped by file in search-rank order.',
  'Use it before changing or removing a function or type, to see who uses it; use find_symbol for the definition alone.',
  'Matching is by name, not by scope or type: a different symbol with the same name matches too, and only the best-matching files (at most 40) are read.',
].join(' ');

type Reference = z.infer<(typeof findReferencesOutput.references)['element']>;

export function registerFindReferences(server: McpServer, engine: SearchEngine): void {
  server.registerTool(
    'find_references',
    {
      title: 'Find uses of a name',
      description: FIND_REFERENCES_DESCRIPTION,
      inputSchema: findReferencesInput,
      outputSchema: findReferencesOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ name, limit }) => {
      const word = name.slice(name.lastIndexOf('.') + 1);
      // The input schema admits identifiers only: `$` is the one regex character left to escape.
      const pattern = new RegExp(
        `(?<![\\p{L}\\p{N}_$])${word.replaceAll('$', '\\$')}(?![\\p{L}\\p{N}_$])`,
        'u',
      );
      const references: Reference[] = [];
      let truncated = false;
      try {
        const [hits, definitions] = await Promise.all([
          engine.search({ query: word, limit: CANDIDATE_CHUNKS, keywordOnly: true }),
          engine.lookupSymbol(word, { limit: 50 }),
        ]);
        const files = [...new Set(hits.results.map((r) => r.path))].slice(0, MAX_FILES);
        for (const file of files) {
          for (const ref of await matchingLines(engine, file, pattern)) {
            if (references.length === limit) {
              truncated = true;
              break;
            }
            references.push({ ...ref, definition: defines(definitions, word, file, ref.line) });
          }
          if (truncated) break;
        }
      } catch (err) {
        return errorResultFrom(err);
      }
      return okResult(formatReferences(word, references, truncated), {
        name: word,
        references,
        truncated,
      });
    },
  );
}

async function matchingLines(
  engine: SearchEngine,
  file: string,
  pattern: RegExp,
): Promise<{ path: string; line: number; text: string }[]> {
  const found: { path: string; line: number; text: string }[] = [];
  for (let start = 1; ; start += PAGE_LINES) {
    const page = await engine.getSnippet(file, start, start + PAGE_LINES - 1);
    const lines = page.text === '' ? [] : page.text.split('\n');
    lines.forEach((text, i) => {
      if (pattern.test(text)) {
        found.push({ path: file, line: start + i, text: text.trim().slice(0, MAX_LINE_CHARS) });
      }
    });
    if (page.endLine < start + PAGE_LINES - 1) return found;
  }
}

/** The line is where find_symbol places a definition of `word` (its first, declaring line). */
function defines(definitions: SymbolInfo[], word: string, file: string, line: number): boolean {
  return definitions.some(
    (s) => s.name.toLowerCase() === word.toLowerCase() && s.path === file && s.startLine === line,
  );
}

function formatReferences(word: string, refs: Reference[], truncated: boolean): string {
  if (refs.length === 0) {
    return `No line in the indexed files uses ${JSON.stringify(word)} as a whole word.`;
  }
  const out = [`${refs.length}${truncated ? '+' : ''} lines use ${JSON.stringify(word)}:`];
  let file = '';
  for (const r of refs) {
    if (r.path !== file) {
      file = r.path;
      out.push(file);
    }
    out.push(`  ${r.line}${r.definition ? ' (definition)' : ''}: ${r.text}`);
  }
  if (truncated) out.push('More lines matched; raise limit to see them.');
  return out.join('\n');
}
