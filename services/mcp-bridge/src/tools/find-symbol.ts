import type { SymbolInfo } from '@codesift/core';
import type { SearchEngine } from '@codesift/search';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { errorResultFrom, okResult } from './results.js';

/** Kinds a symbol can have (UnitKind without the chunk-only kinds block and window). */
export const SYMBOL_KINDS = [
  'function',
  'method',
  'class',
  'interface',
  'type',
  'enum',
  'struct',
  'trait',
  'impl',
  'module',
  'constant',
  'variable',
  'field',
  'section',
] as const;

export const findSymbolInput = {
  name: z
    .string()
    .min(1)
    .max(300)
    .describe('Name of the symbol, e.g. "addEdge", or qualified, e.g. "Graph.addEdge".'),
  kind: z.enum(SYMBOL_KINDS).optional().describe('Only symbols of this kind.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(50)
    .default(10)
    .describe('How many definitions to return (1-50, default 10).'),
};

const symbolSchema = z.object({
  name: z.string(),
  qualified_name: z.string(),
  kind: z.string(),
  path: z.string(),
  language: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  parent: z.string().nullable(),
  signature: z.string(),
  doc: z.string(),
});

export const findSymbolOutput = {
  name: z.string(),
  symbols: z.array(symbolSchema),
  suggestions: z
    .array(z.string())
    .describe('Indexed names starting like the one asked for, when nothing matched exactly.'),
};

export const FIND_SYMBOL_DESCRIPTION = [
  'Find where a function, method, class, interface, type or constant is defined, by name (case-insensitive; exact matches first, declarations before impl blocks, extensions and prototypes, then names that start with it).',
  'Returns each definition with file path, line range, kind, signature, doc comment and enclosing symbol.',
  'Use it when you know the identifier (from code, a stack trace or a search result); use search_code when you only know what the code does.',
  'Narrow with kind; follow up with get_snippet on the returned line range to read the body.',
].join(' ');

export function registerFindSymbol(server: McpServer, engine: SearchEngine): void {
  server.registerTool(
    'find_symbol',
    {
      title: 'Find symbol definition',
      description: FIND_SYMBOL_DESCRIPTION,
      inputSchema: findSymbolInput,
      outputSchema: findSymbolOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ name, kind, limit }) => {
      let symbols: SymbolInfo[];
      try {
        symbols = await engine.lookupSymbol(name, kind ? { kind, limit } : { limit });
      } catch (err) {
        return errorResultFrom(err);
      }
      const suggestions = symbols.length ? [] : await suggest(engine, name);
      return okResult(formatSymbols(name, kind, symbols, suggestions), {
        name,
        symbols: symbols.map((s) => ({
          name: s.name,
          qualified_name: s.qualifiedName,
          kind: s.kind,
          path: s.path,
          language: s.language,
          start_line: s.startLine,
          end_line: s.endLine,
          parent: s.parent,
          signature: s.signature,
          doc: s.doc,
        })),
        suggestions,
      });
    },
  );
}

/**
 * Near misses for a name with no definition: indexed names sharing its
 * longest prefix that matches anything (typos are mostly near the end). Best
 * effort, so a failing vocabulary never hides the answer.
 */
async function suggest(engine: SearchEngine, name: string): Promise<string[]> {
  const base = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name;
  const lengths = [...new Set([base.length - 1, Math.ceil(base.length / 2), 3])]
    .filter((n) => n >= 3)
    .sort((a, b) => b - a);
  try {
    for (const n of lengths) {
      const words = await engine.vocabulary({ prefix: base.slice(0, n), limit: 10 });
      const names = words.map((w) => w.name).filter((w) => w !== name);
      if (names.length) return names;
    }
  } catch {
    // Suggestions are a courtesy; the empty answer stands without them.
  }
  return [];
}

function formatSymbols(
  name: string,
  kind: string | undefined,
  symbols: SymbolInfo[],
  suggestions: string[],
): string {
  const what = kind
    ? `${kind} named ${JSON.stringify(name)}`
    : `symbol named ${JSON.stringify(name)}`;
  if (symbols.length === 0) {
    const lines = [`No ${what} is defined in the index.`];
    if (suggestions.length) lines.push(`Similar indexed names: ${suggestions.join(', ')}.`);
    lines.push(
      'Names are matched from their start; search_code finds code by description or by words inside names.',
    );
    return lines.join('\n');
  }
  const out = [`${symbols.length} definition${symbols.length === 1 ? '' : 's'} of ${what}:`];
  symbols.forEach((s, i) => {
    out.push('');
    out.push(
      `${i + 1}. ${s.path}:${s.startLine}-${s.endLine}  ${s.qualifiedName}  [${s.kind}, ${s.language}]`,
    );
    if (s.signature) out.push(`   ${s.signature.split('\n').join('\n   ')}`);
    if (s.doc) out.push(`   doc: ${s.doc.split('\n').join('\n        ')}`);
  });
  return out.join('\n');
}
