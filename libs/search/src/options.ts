/**
 * Checking what callers pass in, before anything is searched: the engine's
 * settings when it opens (fusion, weight, the repository's config file) and
 * each request's options, turned into the planner's PlanOptions. Bad input
 * is an INVALID_ARGUMENT naming the option.
 */
import { CodesiftError, DEFAULT_LIMIT, findConfigFile, MAX_LIMIT } from '@codesift/core';
import type { LlmClient } from '@codesift/llm';
import { readRepositoryLlmSettings, resolveLlmConfig } from '@codesift/llm/config';
import type { Embedder } from '@codesift/models';
import { mergeSynonymTables } from '@codesift/query';
import { ALL_VARIANT_KINDS, NO_PLANNING } from './planning/plan-query.js';
import { PLANNER_SWITCHES } from './planning/switches.js';
import type { FusionMode, PlannerConfig, PlanOptions, VariantKind } from './planning/types.js';
import { MAX_VARIANTS } from './planning/variants.js';
import { plannerConfigFrom, readSearchConfig, type SearchConfig } from './search-config.js';
import type { SearchRequest } from './types.js';

/** How an engine searches, whatever its stores. */
export interface EngineSettings {
  /**
   * The query embedder. undefined: recreate the one the index was built with
   * (builtin, or Ollama via env OLLAMA_HOST when the index says
   * 'ollama:<model>'); null: keyword only. A given embedder stays the
   * caller's to close.
   */
  embedder?: Embedder | null;
  /**
   * Load the index's model as the engine opens (the engine opens once it is
   * loaded), so that a server's first queries do not wait for it. Default false: the model loads when a
   * search first needs the vector side, so a one-shot keyword-only search
   * (or an engine that never searches) never loads it.
   */
  preloadModel?: boolean;
  /**
   * A long-lived engine (a server, MCP, a benchmark): the built-in model
   * embeds long texts (pasted reports) in a worker thread, started on the
   * first one, so that it computes while the keyword side's SQLite work
   * holds this thread (long-text-embedder.ts). Default false: a one-shot
   * search would pay the worker's start for nothing. Other embedders are
   * unchanged.
   */
  longTextWorker?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Default fusion; wins over the repository's config file. */
  fusion?: FusionMode;
  vectorWeight?: number;
  /**
   * Search settings over the repository's config file (see
   * search-config.ts); null: ignore the file.
   */
  config?: SearchConfig | null;
  /**
   * The chat model for the query rewrite. undefined: from the environment
   * (CODESIFT_LLM_MODEL, OLLAMA_HOST) and the repository config file's
   * "llm" section, none when no model is set there; null: none.
   */
  llm?: LlmClient | null;
}

export function checkSettings(options: EngineSettings): void {
  if (options.fusion !== undefined) checkFusion(options.fusion);
  if (options.vectorWeight !== undefined) checkWeight(options.vectorWeight);
}

/** Defaults < the repository's config file < `options.config` < `options.fusion`/`vectorWeight`. */
export function plannerConfigFor(root: string | null, options: EngineSettings): PlannerConfig {
  let config: SearchConfig = {};
  if (options.config !== null && root !== null) {
    const file = findConfigFile(root);
    if (file !== null) config = readSearchConfig(file);
  }
  config = { ...config, ...(options.config ?? {}) };
  if (options.fusion !== undefined) config.fusion = options.fusion;
  if (options.vectorWeight !== undefined) config.vectorWeight = options.vectorWeight;
  return plannerConfigFrom(config);
}

function checkFusion(f: unknown): asserts f is FusionMode {
  if (f !== 'rrf' && f !== 'linear' && f !== 'adaptive') {
    throw new CodesiftError('INVALID_ARGUMENT', `unknown fusion ${JSON.stringify(f)}`, {
      hint: "use 'rrf', 'linear' or 'adaptive'",
    });
  }
}

function checkWeight(w: number, name = 'vectorWeight'): void {
  if (!(typeof w === 'number' && w >= 0 && w <= 1)) {
    throw new CodesiftError('INVALID_ARGUMENT', `${name} must be within 0..1, got ${w}`);
  }
}

/** The request's query text, refused when blank. */
export function checkedQuery(request: SearchRequest): string {
  const query = typeof request?.query === 'string' ? request.query : '';
  if (query.trim() === '') {
    throw new CodesiftError('INVALID_ARGUMENT', 'the query is empty', {
      hint: 'pass the words, identifier or pasted text to search for',
    });
  }
  if (request.deadlineMs !== undefined && !(request.deadlineMs > 0)) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `deadlineMs must be positive, got ${request.deadlineMs}`,
    );
  }
  return query;
}

const FOCI = new Set(['implementation', 'tests', 'all']);

function normalizeLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isFinite(limit) || limit < 1) {
    throw new CodesiftError('INVALID_ARGUMENT', `limit must be a positive number, got ${limit}`);
  }
  return Math.min(MAX_LIMIT, Math.floor(limit));
}

/** Checks a request's options and turns them into the planner's. */
export function planOptions(request: SearchRequest, vectorAvailable: boolean): PlanOptions {
  const limit = normalizeLimit(request.limit);
  if (request.fusion !== undefined) checkFusion(request.fusion);
  if (request.vectorWeight !== undefined) checkWeight(request.vectorWeight);
  if (request.rrfK !== undefined && !(request.rrfK > 0)) {
    throw new CodesiftError('INVALID_ARGUMENT', `rrfK must be positive, got ${request.rrfK}`);
  }
  if (request.focus !== undefined && !FOCI.has(request.focus)) {
    throw new CodesiftError('INVALID_ARGUMENT', `unknown focus ${JSON.stringify(request.focus)}`, {
      hint: "use 'implementation', 'tests' or 'all'",
    });
  }
  if (
    request.rewrite !== undefined &&
    request.rewrite !== 'auto' &&
    request.rewrite !== 'on' &&
    request.rewrite !== 'off'
  ) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `unknown rewrite ${JSON.stringify(request.rewrite)}`,
      {
        hint: "use 'auto', 'on' or 'off'",
      },
    );
  }
  const out: PlanOptions = { limit, vectorAvailable, ...variantOptions(request) };
  if (request.rewrite !== undefined) out.rewrite = request.rewrite;
  if (request.fusion !== undefined) out.fusion = request.fusion;
  if (request.vectorWeight !== undefined) out.vectorWeight = request.vectorWeight;
  if (request.rrfK !== undefined) out.rrfK = request.rrfK;
  if (request.focus !== undefined) out.focus = request.focus;
  // Anything but an explicit false (a loosely typed caller's 0 or '') leaves a switch on.
  for (const k of PLANNER_SWITCHES) if (request[k] !== undefined) out[k] = request[k] !== false;
  if (request.fileScore !== undefined) {
    if (
      request.fileScore !== 'best' &&
      request.fileScore !== 'decayed' &&
      request.fileScore !== 'auto'
    ) {
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `unknown fileScore ${JSON.stringify(request.fileScore)}`,
        { hint: "use 'best', 'decayed' or 'auto'" },
      );
    }
    out.fileScore = request.fileScore;
  }
  if (request.planning === false) {
    // Everything the planner decides, off; explicit options above still win.
    for (const [k, v] of Object.entries(NO_PLANNING)) {
      if (request[k as keyof SearchRequest] === undefined) (out as Record<string, unknown>)[k] = v;
    }
  }
  if (request.keywordOnly) out.keywordOnly = true;
  if (request.collapseFiles) out.collapseFiles = true;
  if (request.filter !== undefined) out.filter = request.filter;
  return out;
}

/** The request's variant options, checked. */
function variantOptions(request: SearchRequest): Partial<PlanOptions> {
  const out: Partial<PlanOptions> = {};
  const n = request.variants;
  if (n !== undefined) {
    if (!(Number.isInteger(n) && n >= 0 && n <= MAX_VARIANTS)) {
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `variants must be an integer from 0 to ${MAX_VARIANTS}, got ${n}`,
        { hint: '0 turns variants off' },
      );
    }
    out.variants = n;
  }
  if (request.variantKinds !== undefined) {
    const known = new Set<string>(ALL_VARIANT_KINDS);
    const bad = request.variantKinds.filter((k) => !known.has(k));
    if (!Array.isArray(request.variantKinds) || bad.length > 0) {
      throw new CodesiftError('INVALID_ARGUMENT', `unknown variant kind ${JSON.stringify(bad)}`, {
        hint: `use ${ALL_VARIANT_KINDS.join(', ')}`,
      });
    }
    out.variantKinds = [...request.variantKinds] as VariantKind[];
  }
  if (request.variantMerge !== undefined) {
    if (request.variantMerge !== 'max' && request.variantMerge !== 'rrf') {
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `unknown variantMerge ${JSON.stringify(request.variantMerge)}`,
        { hint: "use 'max' or 'rrf'" },
      );
    }
    out.variantMerge = request.variantMerge;
  }
  if (request.variantVectors !== undefined) out.variantVectors = request.variantVectors === true;
  return out;
}

/** The engine's planner config with the request's own synonyms merged in. */
export function withRequestSynonyms(config: PlannerConfig, request: SearchRequest): PlannerConfig {
  if (request.synonyms === undefined) return config;
  return {
    ...config,
    synonyms: mergeSynonymTables(
      config.synonyms,
      request.synonyms,
      request.synonymsMode ?? 'extend',
    ),
  };
}

/** The engine's LLM client: the given one, or one from the environment and the repository's config file. */
export async function llmClientFor(
  root: string | null,
  options: EngineSettings,
): Promise<LlmClient | null> {
  if (options.llm !== undefined) return options.llm;
  const file = root === null ? {} : readRepositoryLlmSettings(root).llm;
  const config = resolveLlmConfig(options.env ?? process.env, file);
  if (config === null) return null;
  // The client (Ollama, ajv) only loads when a model is configured: a search
  // without one should not pay for it at start-up.
  const { createLlmClient } = await import('@codesift/llm');
  return createLlmClient(config);
}
