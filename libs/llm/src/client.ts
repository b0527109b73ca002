import { errorMessage } from '@codesift/core';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ollama } from 'ollama';
import { boundedFetch, ReplyTooLarge } from './bounded-fetch.js';
import { CircuitBreaker } from './breaker.js';
import type { LlmConfig } from './config.js';
import { Limiter } from './limiter.js';
import type { LlmFailure, LlmOutcome } from './outcome.js';

/** A JSON schema (draft 2020-12 subset ajv accepts); also sent to Ollama as `format`. */
export type JsonSchema = Record<string, unknown>;

/**
 * The first Ollama release that takes a JSON schema as `format` (structured
 * outputs). An older server knows only `format: "json"`, so every call of this
 * client would fail there and each chunk or query fall back: deployments pin
 * at least this version (checked by the deploy policy tests).
 */
export const OLLAMA_STRUCTURED_OUTPUT_SINCE = '0.5.0';

export interface ChatJsonRequest {
  /** Instructions; never mixed with untrusted text. */
  system: string;
  /** The material to work on (code, a question); may hold hostile text. */
  user: string;
  /** The answer must be JSON matching this schema; compiled once per schema object. */
  schema: JsonSchema;
  /** Longest answer text accepted, in characters; default 8000. */
  maxAnswerChars?: number;
  /** Ollama options, e.g. { temperature: 0, num_predict: 120 }. */
  options?: Record<string, number>;
  /**
   * This call's time limit, retries included, when shorter than the
   * client's timeoutMs: a caller with a deadline of its own (a search)
   * gives the model only what is left of it.
   */
  timeoutMs?: number;
}

export interface LlmStats {
  calls: number;
  ok: number;
  failures: Partial<Record<LlmFailure, number>>;
  retries: number;
  breakerOpened: number;
}

export interface LlmClient {
  readonly model: string;
  readonly host: string;
  /** One chat call with a JSON-schema answer; never rejects. */
  chatJson<T>(request: ChatJsonRequest): Promise<LlmOutcome<T>>;
  /** Counts since the client was made. */
  stats(): LlmStats;
}

const DEFAULT_MAX_ANSWER_CHARS = 8000;
const RETRY_STATUS = new Set([502, 503]);
const RETRY_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

export function createLlmClient(config: LlmConfig): LlmClient {
  return new OllamaLlmClient(config);
}

type Attempt = { value: unknown } | { failure: LlmFailure; reason: string; transient: boolean };

class OllamaLlmClient implements LlmClient {
  readonly model: string;
  readonly host: string;
  private readonly limiter: Limiter;
  private readonly breaker: CircuitBreaker;
  private readonly ajv = new Ajv({ allErrors: false, strict: false });
  private readonly validators = new WeakMap<JsonSchema, ValidateFunction>();
  private readonly counts: LlmStats = {
    calls: 0,
    ok: 0,
    failures: {},
    retries: 0,
    breakerOpened: 0,
  };

  constructor(private readonly config: LlmConfig) {
    this.model = config.model;
    this.host = config.host;
    this.limiter = new Limiter(Math.max(1, config.concurrency));
    this.breaker = new CircuitBreaker(config.breakerThreshold, config.breakerCooldownMs);
  }

  stats(): LlmStats {
    return {
      ...this.counts,
      failures: { ...this.counts.failures },
      breakerOpened: this.breaker.opened,
    };
  }

  chatJson<T>(request: ChatJsonRequest): Promise<LlmOutcome<T>> {
    const validate = this.validator(request.schema);
    return this.limiter.run(async () => {
      const started = performance.now();
      const ms = () => Math.round(performance.now() - started);
      const refused = this.breaker.admit();
      if (refused) return this.fail('breaker-open', refused, ms());
      this.counts.calls++;
      const reply = await this.attempts(request);
      if ('failure' in reply) {
        // A garbage answer proves the server is alive: only outages trip the breaker.
        if (reply.failure === 'garbage') this.breaker.succeeded();
        else this.breaker.failed();
        return this.fail(reply.failure, reply.reason, ms());
      }
      this.breaker.succeeded();
      const checked = this.check<T>(reply.value, request, validate);
      if (!checked.ok) return this.fail('garbage', checked.reason, ms());
      this.counts.ok++;
      return { ok: true, value: checked.value, ms: ms() };
    });
  }

  /** One call with retries on transport errors, all within one deadline. */
  private async attempts(request: ChatJsonRequest): Promise<Attempt> {
    const deadline = new AbortController();
    const limit = this.limitFor(request);
    const timer = setTimeout(() => deadline.abort(), limit);
    try {
      for (let attempt = 0; ; attempt++) {
        const result = await this.once(request, deadline.signal, limit);
        if (!('failure' in result) || !result.transient || attempt >= this.config.retries) {
          return result;
        }
        this.counts.retries++;
        await sleep(100 * 2 ** attempt, deadline.signal);
        if (deadline.signal.aborted) {
          return { failure: 'timeout', reason: this.timeoutReason(limit), transient: false };
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private async once(
    request: ChatJsonRequest,
    signal: AbortSignal,
    limit: number,
  ): Promise<Attempt> {
    const ollama = new Ollama({
      host: this.host,
      fetch: boundedFetch(signal, this.config.maxReplyBytes),
    });
    try {
      const reply = await ollama.chat({
        model: this.model,
        messages: [
          { role: 'system', content: request.system },
          { role: 'user', content: request.user },
        ],
        format: request.schema,
        stream: false,
        ...(request.options ? { options: request.options } : {}),
      });
      return { value: reply };
    } catch (err) {
      if (signal.aborted)
        return { failure: 'timeout', reason: this.timeoutReason(limit), transient: false };
      return this.classify(err);
    }
  }

  private classify(err: unknown): Attempt {
    if (err instanceof ReplyTooLarge) {
      return { failure: 'garbage', reason: err.message, transient: false };
    }
    if (err instanceof SyntaxError) {
      return {
        failure: 'garbage',
        reason: `reply body is not JSON (${err.message})`,
        transient: false,
      };
    }
    const status = (err as { status_code?: unknown }).status_code;
    const message = errorMessage(err);
    if (status === 404 && /not found/i.test(message)) {
      return {
        failure: 'model-missing',
        reason: `model ${this.model} is not on ${this.host}: ${message} (ollama pull ${this.model})`,
        transient: false,
      };
    }
    if (status === 400 && /\bformat\b/i.test(message)) {
      // Ollama before structured outputs decodes `format` as a string and refuses the
      // schema object on every call: say what to upgrade instead of a bare 400.
      return {
        failure: 'error',
        reason: `${this.host} refused the JSON-schema format (${message}): it needs Ollama ${OLLAMA_STRUCTURED_OUTPUT_SINCE} or later (structured outputs)`,
        transient: false,
      };
    }
    if (typeof status === 'number') {
      return {
        failure: 'error',
        reason: `HTTP ${status} from ${this.host}: ${message}`,
        transient: RETRY_STATUS.has(status),
      };
    }
    const code = (err as { cause?: { code?: string } }).cause?.code;
    return {
      failure: 'error',
      reason: `cannot reach ${this.host}: ${code ?? message}`,
      transient: code !== undefined && RETRY_CODES.has(code),
    };
  }

  private check<T>(
    reply: unknown,
    request: ChatJsonRequest,
    validate: ValidateFunction,
  ): { ok: true; value: T } | { ok: false; reason: string } {
    const content = (reply as { message?: { content?: unknown } } | null)?.message?.content;
    if (typeof content !== 'string') return { ok: false, reason: 'reply has no message content' };
    const max = request.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS;
    if (content.length > max) {
      return { ok: false, reason: `answer is ${content.length} characters, over ${max}` };
    }
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch {
      return { ok: false, reason: `answer is not JSON: ${JSON.stringify(content.slice(0, 60))}` };
    }
    if (!validate(value)) {
      return {
        ok: false,
        reason: `answer does not match the schema: ${this.ajv.errorsText(validate.errors)}`,
      };
    }
    return { ok: true, value: value as T };
  }

  private validator(schema: JsonSchema): ValidateFunction {
    let v = this.validators.get(schema);
    if (!v) {
      v = this.ajv.compile(schema);
      this.validators.set(schema, v);
    }
    return v;
  }

  private fail<T>(failure: LlmFailure, reason: string, ms: number): LlmOutcome<T> {
    this.counts.failures[failure] = (this.counts.failures[failure] ?? 0) + 1;
    return { ok: false, failure, reason, ms };
  }

  private limitFor(request: ChatJsonRequest): number {
    const own = request.timeoutMs;
    return own !== undefined && own > 0
      ? Math.min(own, this.config.timeoutMs)
      : this.config.timeoutMs;
  }

  private timeoutReason(limit: number): string {
    return `no answer from ${this.host} within ${Math.round(limit)} ms`;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
