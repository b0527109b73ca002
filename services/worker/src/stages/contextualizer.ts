// contextualizer: a batch of FileChunks on `chunks` -> the same chunks with
// their context sentence on `contextualized`. The same code as local mode:
// with a chat model configured (CODESIFT_LLM_MODEL, OLLAMA_HOST, as for
// `codesift index --context llm`) each chunk is asked about through
// @codesift/context's llmChunkContext, cached by content in a JetStream
// bucket every replica shares, and falls back to its pattern context on any
// model fault; without one, pattern contexts only.
import { createWorkFile, openBucket, type WorkFile, type WorkMessage } from '@codesift/bus';
import {
  applyContext,
  type ContextCache,
  type Contextualizer,
  createLlmContextualizer,
  createPatternContextualizer,
} from '@codesift/context';
import { errorMessage } from '@codesift/core';
import { createLlmClient, resolveLlmConfig } from '@codesift/llm';
import type { FailedFile, StageDefinition, StageResult, StageRuntime } from '@codesift/service-kit';
import { chunkFromWire, chunkToWire, symbolFromWire } from '@codesift/wire';
import { createKvContextCache } from '../kv-context-cache.js';
import { timedLlmClient } from '../timed-llm-client.js';

/**
 * Batches one LLM-mode replica takes at once: the chat client already bounds
 * the calls in flight (CODESIFT_LLM_CONCURRENCY), so a second batch only
 * keeps those slots busy while the first one's last chunks finish; more
 * would sit here while other replicas idle, as with the embedder.
 */
const LLM_IN_FLIGHT = 2;

/** Gives every chunk of the batch its context sentence; the batch's files are worked on at once. */
export async function contextualizeBatch(
  contextualizer: Contextualizer,
  batch: WorkMessage<'chunks'>,
): Promise<StageResult<'chunks'>> {
  const results = await Promise.all(
    batch.files.map(async (file) => {
      try {
        const chunks = file.chunks.map(chunkFromWire);
        const contexts = await contextualizer.contextualizeFile(chunks, {
          path: file.path,
          language: file.language,
          symbols: file.symbols.map(symbolFromWire),
        });
        // The context and who wrote it travel on with the chunk, to the index.
        chunks.forEach((c, i) => {
          applyContext(c, contexts[i]);
        });
        return {
          ok: createWorkFile('contextualized', { ...file, chunks: chunks.map(chunkToWire) }),
        };
      } catch (err) {
        // Neither contextualizer rejects for a model fault (LLM mode falls
        // back per chunk), so what lands here is a bug for this input: it
        // would fail every time, and fails the file alone.
        return { failed: { file, reason: `contextualize: ${errorMessage(err)}` } };
      }
    }),
  );
  const out: WorkFile<'contextualized'>[] = [];
  const failed: FailedFile<'chunks'>[] = [];
  for (const r of results) {
    if (r.ok) out.push(r.ok);
    else failed.push(r.failed);
  }
  return { failed, out: [{ queue: 'contextualized', files: out }] };
}

/**
 * The contextualizer the environment asks for: LLM mode when a chat model
 * is configured (the same variables as local mode), else pattern.
 */
export async function contextualizerFromEnv(
  runtime: Pick<StageRuntime, 'env' | 'js' | 'log'>,
): Promise<{ contextualizer: Contextualizer; cache?: ContextCache }> {
  const config = resolveLlmConfig(runtime.env);
  if (!config) return { contextualizer: createPatternContextualizer() };
  const cache = createKvContextCache(await openBucket(runtime.js, 'contexts'), runtime.log);
  const contextualizer = createLlmContextualizer({
    client: timedLlmClient(createLlmClient(config)),
    cache,
  });
  return { contextualizer, cache };
}

export const contextualizerStage: StageDefinition = {
  name: 'contextualizer',
  async init(runtime) {
    const { contextualizer } = await contextualizerFromEnv(runtime);
    runtime.log.info('contextualizer ready', { contextualizer: contextualizer.name });
    return {
      bindings: [
        {
          queue: 'chunks',
          maxInFlight: contextualizer.name === 'pattern' ? undefined : LLM_IN_FLIGHT,
          handler: (batch) => contextualizeBatch(contextualizer, batch),
        },
      ],
    };
  },
};
