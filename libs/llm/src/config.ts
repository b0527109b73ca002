/**
 * LLM settings. Nothing LLM-related runs unless a model is configured:
 *
 *   environment            CODESIFT_LLM_MODEL (the chat model, e.g. qwen3:0.6b),
 *                          OLLAMA_HOST (default http://127.0.0.1:11434),
 *                          CODESIFT_LLM_TIMEOUT_MS, CODESIFT_LLM_CONCURRENCY
 *   repository config file the "llm" section of <root>/.codesift/config.json
 *                          (or <root>/.codesift.json):
 *                          { "llm": { "model": "qwen3:0.6b", "host": "http://gpu:11434",
 *                                     "timeoutMs": 15000, "concurrency": 4 } }
 *
 * The environment wins over the file, so one shell can point a checked-in
 * config at another server.
 */
import { CodesiftError, findConfigFile, readConfigFile } from '@codesift/core';

export interface LlmConfig {
  host: string;
  model: string;
  /** Whole call, retries included; default 15000. */
  timeoutMs: number;
  /** Requests in flight at once; default 4. */
  concurrency: number;
  /** Extra attempts after a transport error (refused, reset, 502, 503); default 2. */
  retries: number;
  /** Consecutive failures that open the circuit breaker; default 5. */
  breakerThreshold: number;
  /** How long the open breaker refuses calls; default 30000. */
  breakerCooldownMs: number;
  /** Largest HTTP reply body read, in bytes; default 262144. */
  maxReplyBytes: number;
}

/** The `llm` section of a config file, validated; every key optional. */
export type LlmFileSettings = Partial<
  Pick<LlmConfig, 'host' | 'model' | 'timeoutMs' | 'concurrency' | 'retries'>
>;

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

export const LLM_DEFAULTS: Omit<LlmConfig, 'host' | 'model'> = {
  timeoutMs: 15_000,
  concurrency: 4,
  retries: 2,
  breakerThreshold: 5,
  breakerCooldownMs: 30_000,
  maxReplyBytes: 256 * 1024,
};

const POSITIVE_KEYS = ['timeoutMs', 'concurrency'] as const;

export function validateLlmSection(section: unknown, where: string): LlmFileSettings {
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    throw bad(where, '"llm" must be an object');
  }
  const s = section as Record<string, unknown>;
  const out: LlmFileSettings = {};
  for (const key of ['host', 'model'] as const) {
    const v = s[key];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.trim() === '') {
      throw bad(where, `"llm.${key}" must be a non-empty string`);
    }
    out[key] = v.trim();
  }
  for (const key of POSITIVE_KEYS) {
    const v = s[key];
    if (v === undefined) continue;
    if (!Number.isInteger(v) || (v as number) <= 0) {
      throw bad(where, `"llm.${key}" must be a positive integer`);
    }
    out[key] = v as number;
  }
  if (s.retries !== undefined) {
    if (!Number.isInteger(s.retries) || (s.retries as number) < 0) {
      throw bad(where, '"llm.retries" must be an integer of 0 or more');
    }
    out.retries = s.retries as number;
  }
  return out;
}

/** How chunk contexts are made at index time. */
export type ContextMode = 'pattern' | 'llm';

/**
 * The LLM keys of the repository's config file: the first of
 * `<root>/.codesift/config.json` and `<root>/.codesift.json` that exists (the
 * files and order the search settings use); none: no settings.
 */
export function readRepositoryLlmSettings(root: string): {
  llm: LlmFileSettings;
  context?: ContextMode;
} {
  const file = findConfigFile(root);
  if (file !== null) return readLlmFileSettings(file);
  return { llm: {} };
}

/**
 * The LLM-related keys of a repository config file: the `llm` section and
 * the top-level `context` ("pattern" | "llm"). Other keys belong to other
 * readers (search settings) and are left alone.
 */
export function readLlmFileSettings(file: string): { llm: LlmFileSettings; context?: ContextMode } {
  const doc = readConfigFile(file);
  const llm = doc.llm === undefined ? {} : validateLlmSection(doc.llm, file);
  if (doc.context === undefined) return { llm };
  if (doc.context !== 'pattern' && doc.context !== 'llm') {
    throw bad(file, '"context" must be "pattern" or "llm"');
  }
  return { llm, context: doc.context };
}

/**
 * The effective settings, or null when no model is configured (then no LLM
 * code path runs at all).
 */
export function resolveLlmConfig(
  env: NodeJS.ProcessEnv,
  file: LlmFileSettings = {},
): LlmConfig | null {
  const model = env.CODESIFT_LLM_MODEL?.trim() || file.model;
  if (!model) return null;
  return {
    ...LLM_DEFAULTS,
    ...file,
    host: env.OLLAMA_HOST?.trim() || file.host || DEFAULT_OLLAMA_HOST,
    model,
    ...envInteger(env, 'CODESIFT_LLM_TIMEOUT_MS', 'timeoutMs'),
    ...envInteger(env, 'CODESIFT_LLM_CONCURRENCY', 'concurrency'),
  };
}

function envInteger(
  env: NodeJS.ProcessEnv,
  name: string,
  key: 'timeoutMs' | 'concurrency',
): Partial<LlmConfig> {
  const raw = env[name]?.trim();
  if (!raw) return {};
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) {
    throw new CodesiftError('INVALID_ARGUMENT', `${name} must be a positive integer, got ${raw}`);
  }
  return { [key]: n };
}

function bad(where: string, message: string): CodesiftError {
  return new CodesiftError('INVALID_ARGUMENT', `${where}: ${message}`, {
    hint: 'the "llm" section is described in the README (LLM settings)',
  });
}
