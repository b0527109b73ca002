import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Language, Parser, Query } from 'web-tree-sitter';
import { type LanguageSpec, languageSpec } from './languages/index.js';

const require = createRequire(import.meta.url);

type WasmModule = Parameters<typeof Language.loadSync>[0];
// The compiler's lib set has no WebAssembly typings; Node has the global.
const { WebAssembly: Wasm } = globalThis as unknown as {
  WebAssembly: { Module: new (bytes: Uint8Array) => WasmModule };
};

let initPromise: Promise<void> | undefined;

/** Initializes the tree-sitter runtime once per process. */
export function initTreeSitter(): Promise<void> {
  initPromise ??= Parser.init().catch((err: unknown) => {
    initPromise = undefined;
    throw err;
  });
  return initPromise;
}

export interface Grammar {
  language: Language;
  spec: LanguageSpec;
  /** One pattern per spec.defs entry, in order. */
  defsQuery: Query;
}

/**
 * Loads grammars on first use. Loading is synchronous (the .wasm is compiled
 * with `new WebAssembly.Module`) so that chunkFile can stay synchronous while
 * a process only pays for the languages it actually meets.
 */
export class GrammarCache {
  private readonly grammars = new Map<string, Grammar | null>();

  /** The loaded grammar, or null when the language has none or it failed to load. */
  get(languageId: string): Grammar | null {
    const cached = this.grammars.get(languageId);
    if (cached !== undefined) return cached;
    let grammar: Grammar | null = null;
    const spec = languageSpec(languageId);
    if (spec) {
      try {
        grammar = loadGrammar(spec);
      } catch {
        // A broken or missing grammar degrades that language to line windows.
        grammar = null;
      }
    }
    this.grammars.set(languageId, grammar);
    return grammar;
  }

  /** Language ids whose grammar has been loaded (or tried), in order. */
  loaded(): string[] {
    return [...this.grammars.keys()];
  }

  delete(): void {
    for (const g of this.grammars.values()) g?.defsQuery.delete();
    this.grammars.clear();
  }
}

function loadGrammar(spec: LanguageSpec): Grammar {
  const pkgDir = path.dirname(require.resolve(`${spec.grammar.pkg}/package.json`));
  const bytes = readFileSync(path.join(pkgDir, spec.grammar.wasm));
  const language = Language.loadSync(new Wasm.Module(bytes));
  const defsQuery = new Query(language, spec.defs.map((d) => d.query).join('\n'));
  if (defsQuery.patternCount() !== spec.defs.length) {
    defsQuery.delete();
    throw new Error(`definition query for ${spec.grammar.wasm} does not have one pattern per rule`);
  }
  return { language, spec, defsQuery };
}
