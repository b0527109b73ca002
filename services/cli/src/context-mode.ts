import {
  type ContextMode,
  DEFAULT_OLLAMA_HOST,
  type LlmConfig,
  readRepositoryLlmSettings,
  resolveLlmConfig,
} from '@codesift/llm';
import { UsageError } from './io.js';

/**
 * `codesift index --context <mode>`: the flag, else the repository config
 * file's "context", else pattern. LLM mode needs a model (CODESIFT_LLM_MODEL
 * or "llm.model" in the config file); asking for it without one is a usage
 * error rather than a silent pattern run. Returns the LLM settings in LLM
 * mode, undefined in pattern mode.
 */
export function llmForIndex(
  flag: string | undefined,
  root: string,
  env: NodeJS.ProcessEnv,
): LlmConfig | undefined {
  if (flag !== undefined && flag !== 'pattern' && flag !== 'llm') {
    throw new UsageError(`--context must be "pattern" or "llm", got "${flag}"`);
  }
  const settings = readRepositoryLlmSettings(root);
  const mode: ContextMode = flag ?? settings.context ?? 'pattern';
  if (mode === 'pattern') return undefined;
  const config = resolveLlmConfig(env, settings.llm);
  if (!config) {
    throw new UsageError(
      'LLM contexts need a model: set CODESIFT_LLM_MODEL (e.g. qwen3:0.6b) or "llm": { "model": ... } in .codesift/config.json',
    );
  }
  return config;
}

/**
 * `codesift eval --context <mode>`: pattern (default) evaluates the
 * pattern-context index alone; llm also builds LLM-context indexes and
 * compares the two. The model comes from the environment, and with --repo
 * also from that tree's config file. Returns the LLM settings for llm.
 */
export function llmForEval(
  flag: string | undefined,
  repoRoot: string | undefined,
  env: NodeJS.ProcessEnv,
): LlmConfig | undefined {
  if (flag !== undefined && flag !== 'pattern' && flag !== 'llm') {
    throw new UsageError(`--context must be "pattern" or "llm", got "${flag}"`);
  }
  if (flag !== 'llm') return undefined;
  const file = repoRoot === undefined ? {} : readRepositoryLlmSettings(repoRoot).llm;
  const config = resolveLlmConfig(env, file);
  if (!config) {
    throw new UsageError(
      `eval --context llm compares pattern contexts with a chat model's and needs one: set CODESIFT_LLM_MODEL (e.g. qwen3:0.6b), and OLLAMA_HOST when the server is not at ${DEFAULT_OLLAMA_HOST}${
        repoRoot === undefined
          ? ''
          : ', or "llm": { "model": ... } in the tree\'s .codesift/config.json'
      }`,
    );
  }
  return config;
}
