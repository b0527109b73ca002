import { CodesiftError, errorMessage, isCodesiftError } from '@codesift/core';
import type { Ollama as OllamaClass } from 'ollama';
import type { Embedder, EmbedOptions } from './embedder.js';
import { l2Normalize } from './vector-math.js';

export interface OllamaEmbedderOptions {
  /** e.g. 'http://127.0.0.1:11434' (the OLLAMA_HOST forms 'host:port' and ':port' work too). */
  host: string;
  /** Default 'nomic-embed-text'. */
  model?: string;
  /** Per HTTP request; default 30000. */
  timeoutMs?: number;
  /** Texts per /api/embed request; default 32. */
  batchSize?: number;
  /** Vector size; when left out, one request at start-up finds it. */
  dimensions?: number;
}

export const DEFAULT_OLLAMA_EMBED_MODEL = 'nomic-embed-text';
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_BATCH = 32;

/**
 * Embeds through a running Ollama server's /api/embed. Every failure mode
 * (server down, model missing, slow, malformed reply) surfaces as a
 * CodesiftError with a hint, never as a raw fetch error.
 */
export async function createOllamaEmbedder(options: OllamaEmbedderOptions): Promise<Embedder> {
  const model = options.model?.trim() || DEFAULT_OLLAMA_EMBED_MODEL;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_BATCH));
  if (!options.host?.trim()) {
    throw new CodesiftError('INVALID_ARGUMENT', 'no Ollama host given', {
      hint: 'set OLLAMA_HOST, e.g. http://127.0.0.1:11434',
    });
  }
  if (!(timeoutMs > 0))
    throw new CodesiftError('INVALID_ARGUMENT', `timeoutMs must be positive, got ${timeoutMs}`);
  if (
    options.dimensions !== undefined &&
    !(Number.isInteger(options.dimensions) && options.dimensions > 0)
  ) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `dimensions must be a positive integer, got ${options.dimensions}`,
    );
  }
  // Loaded here, not with the module: a process using the built-in model never needs it.
  const { Ollama } = await import('ollama');
  const client = new OllamaClient(Ollama, options.host.trim(), model, timeoutMs);
  let dimensions = options.dimensions;
  if (dimensions === undefined) {
    const [probe] = await client.embed(['dimension probe'], undefined, undefined);
    dimensions = probe!.length;
    if (dimensions === 0) throw client.malformed('the probe vector is empty');
  }
  return new OllamaEmbedder(client, model, dimensions, batchSize);
}

class OllamaEmbedder implements Embedder {
  readonly name: string;

  constructor(
    private readonly client: OllamaClient,
    model: string,
    readonly dimensions: number,
    readonly maxBatch: number,
  ) {
    this.name = `ollama:${model}`;
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.maxBatch) {
      options.signal?.throwIfAborted();
      const batch = texts.slice(start, start + this.maxBatch);
      out.push(...(await this.client.embed(batch, this.dimensions, options.signal)));
    }
    return out;
  }

  async close(): Promise<void> {
    // Stateless HTTP: nothing to release.
  }
}

class OllamaClient {
  constructor(
    private readonly Ollama: typeof OllamaClass,
    readonly host: string,
    readonly model: string,
    private readonly timeoutMs: number,
  ) {}

  /** One /api/embed request; returns L2-normalised vectors, validated. */
  async embed(
    input: string[],
    dimensions: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Float32Array[]> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    // The client has no per-request signal for embed(); a fetch bound to this call's signal gives one.
    const ollama = new this.Ollama({
      host: this.host,
      fetch: (url, init) => fetch(url, { ...init, signal: combined }),
    });
    let reply: unknown;
    try {
      reply = await ollama.embed({ model: this.model, input, truncate: true });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.signal.aborted) {
        throw new CodesiftError(
          'TIMEOUT',
          `Ollama at ${this.host} did not answer within ${this.timeoutMs} ms`,
          {
            hint: 'check that the server is not overloaded, or raise the embedding timeout',
            cause: err,
          },
        );
      }
      throw this.describe(err);
    } finally {
      clearTimeout(timer);
    }
    return this.validate(reply, input.length, dimensions);
  }

  malformed(detail: string): CodesiftError {
    return new CodesiftError(
      'MODEL_UNAVAILABLE',
      `Ollama returned a malformed embedding reply: ${detail}`,
      {
        hint: `check that ${this.model} is an embedding model (ollama show ${this.model})`,
      },
    );
  }

  private describe(err: unknown): CodesiftError {
    if (isCodesiftError(err)) return err;
    const status = (err as { status_code?: unknown }).status_code;
    const message = errorMessage(err);
    if (status === 404 || /not found/i.test(message)) {
      return new CodesiftError(
        'MODEL_UNAVAILABLE',
        `Ollama model ${this.model} is not available: ${message}`,
        {
          hint: `ollama pull ${this.model}`,
          cause: err,
        },
      );
    }
    if (typeof status === 'number') {
      return new CodesiftError(
        'MODEL_UNAVAILABLE',
        `Ollama at ${this.host} failed (HTTP ${status}): ${message}`,
        {
          hint: 'see the Ollama server log',
          cause: err,
        },
      );
    }
    if (err instanceof SyntaxError) {
      return this.malformed(`not JSON (${message})`);
    }
    return new CodesiftError(
      'MODEL_UNAVAILABLE',
      `cannot reach Ollama at ${this.host}: ${networkReason(err)}`,
      {
        hint: 'start it with `ollama serve`, or point OLLAMA_HOST at a running server',
        cause: err,
      },
    );
  }

  private validate(reply: unknown, count: number, dimensions: number | undefined): Float32Array[] {
    const embeddings = (reply as { embeddings?: unknown } | null)?.embeddings;
    if (!Array.isArray(embeddings)) throw this.malformed('no "embeddings" array');
    if (embeddings.length !== count) {
      throw this.malformed(`${embeddings.length} vectors for ${count} inputs`);
    }
    return embeddings.map((e: unknown, i) => {
      if (!Array.isArray(e)) throw this.malformed(`vector ${i} is not an array`);
      if (dimensions !== undefined && e.length !== dimensions) {
        throw new CodesiftError(
          'MODEL_UNAVAILABLE',
          `Ollama model ${this.model} returned ${e.length}-d vectors, expected ${dimensions}`,
          {
            hint: 'the model changed since the index was built; rebuild the index or configure the original model',
          },
        );
      }
      const v = new Float32Array(e.length);
      for (let k = 0; k < e.length; k++) {
        const x = e[k];
        if (typeof x !== 'number' || !Number.isFinite(x)) {
          throw this.malformed(`vector ${i} has a non-numeric value at ${k}`);
        }
        v[k] = x;
      }
      return l2Normalize(v);
    });
  }
}

/** The useful part of a fetch failure ("fetch failed" hides the socket error in `cause`). */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  return errorMessage(err);
}
