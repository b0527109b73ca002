import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { errorMessage } from '@codesift/core';
import { Language, Parser, Query } from 'web-tree-sitter';
import { type LanguageSpec, languageSpec } from './languages/index.js';

const require = createRequire(import.meta.url);

type WasmModule = Parameters<typeof Language.loadSync>[0];
// The compiler's lib set has no WebAssembly typings; Node has the global.
const { WebAssembly: Wasm } = globalThis as unknown as {
  WebAssembly: {
    Module: new (bytes: Uint8Array) => WasmModule;
    compile(bytes: Uint8Array): Promise<WasmModule>;
  };
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

export interface GrammarCacheOptions {
  /**
   * A .wasm file per language id, read instead of the grammar package's.
   * For a grammar built elsewhere, and for tests that need a broken one.
   */
  wasmPaths?: Readonly<Record<string, string>>;
  /** Where the one warning per failed language goes; default stderr. */
  warn?: (message: string) => void;
}

/**
 * Loads grammars on first use. Loading is synchronous (the .wasm is compiled
 * with `new WebAssembly.Module`) so that chunkFile can stay synchronous while
 * a process only pays for the languages it actually meets.
 *
 * A grammar that fails to load is never a silent downgrade: the language's
 * files still get line windows (indexing goes on), but the failure is warned
 * once with the language and reason, and `failure()` hands the reason to
 * the chunker so that every such file says why it has no AST chunks.
 */
export class GrammarCache {
  private readonly grammars = new Map<string, Grammar | null>();
  private readonly failures = new Map<string, string>();

  constructor(private readonly options: GrammarCacheOptions = {}) {}

  /** The loaded grammar, or null when the language has none or it failed to load. */
  get(languageId: string): Grammar | null {
    const cached = this.grammars.get(languageId);
    if (cached !== undefined) return cached;
    let grammar: Grammar | null = null;
    const spec = languageSpec(languageId);
    if (spec) {
      try {
        grammar = loadGrammar(spec, this.options.wasmPaths?.[languageId]);
      } catch (err) {
        this.failed(languageId, spec, err);
      }
    }
    this.grammars.set(languageId, grammar);
    return grammar;
  }

  /** Why the language's grammar failed to load, or undefined when it did not fail (or was not tried). */
  failure(languageId: string): string | undefined {
    return this.failures.get(languageId);
  }

  /**
   * Loads a language's grammar before its first file needs it, compiling
   * the .wasm asynchronously (V8 compiles off the main thread), so a process
   * that warms up at start stays responsive meanwhile. A no-op for a language
   * already loaded or without a grammar. A grammar that fails here is
   * reported as get() reports it, once, and not loaded again by its first file.
   */
  async warm(languageId: string): Promise<void> {
    if (this.grammars.has(languageId)) return;
    const spec = languageSpec(languageId);
    if (!spec) return;
    let grammar: Grammar | null = null;
    try {
      const file = wasmFile(spec, this.options.wasmPaths?.[languageId]);
      grammar = grammarFrom(spec, await Wasm.compile(await readFile(file)));
    } catch (err) {
      if (!this.grammars.has(languageId)) this.failed(languageId, spec, err);
    }
    if (this.grammars.has(languageId)) {
      // A file of that language was chunked meanwhile and loaded it: keep that one.
      grammar?.defsQuery.delete();
      return;
    }
    this.grammars.set(languageId, grammar);
  }

  /** Records and warns, once per language, that its grammar failed to load. */
  private failed(languageId: string, spec: LanguageSpec, err: unknown): void {
    const reason = `the ${languageId} grammar (${spec.grammar.pkg}) failed to load: ${errorMessage(err)}`;
    this.failures.set(languageId, reason);
    (this.options.warn ?? warnOnStderr)(
      `warning: ${reason}; ${languageId} files get line windows without symbols`,
    );
  }

  /** Language ids whose grammar has been loaded (or tried), in order. */
  loaded(): string[] {
    return [...this.grammars.keys()];
  }

  delete(): void {
    for (const g of this.grammars.values()) g?.defsQuery.delete();
    this.grammars.clear();
    this.failures.clear();
  }
}

function warnOnStderr(message: string): void {
  process.stderr.write(`codesift: ${message}\n`);
}

function loadGrammar(spec: LanguageSpec, wasmPath: string | undefined): Grammar {
  return grammarFrom(spec, new Wasm.Module(readFileSync(wasmFile(spec, wasmPath))));
}

/** The grammar package's own .wasm, unless a path for it was given. */
function wasmFile(spec: LanguageSpec, wasmPath: string | undefined): string {
  if (wasmPath) return wasmPath;
  const pkgDir = path.dirname(require.resolve(`${spec.grammar.pkg}/package.json`));
  return path.join(pkgDir, spec.grammar.wasm);
}

function grammarFrom(spec: LanguageSpec, module: WasmModule): Grammar {
  const language = Language.loadSync(module);
  const defsQuery = new Query(language, spec.defs.map((d) => d.query).join('\n'));
  if (defsQuery.patternCount() !== spec.defs.length) {
    defsQuery.delete();
    throw new Error(`definition query for ${spec.grammar.wasm} does not have one pattern per rule`);
  }
  return { language, spec, defsQuery };
}
