import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { vocabularyEcho } from './vocabulary-echo.js';

/**
 * An Ollama stand-in on loopback for tests. It answers /api/chat,
 * /api/generate, /api/embed, /api/tags and /api/version in the shapes of
 * Ollama's REST API, behaves per a scripted mode, and records every request.
 *
 *   const fake = await startFakeLlmServer({ models: ['qwen3:0.6b'] });
 *   fake.setMode({ kind: 'good', answer: { context: 'Parses flags.' } });
 *   fake.queue({ kind: 'http', status: 503 });   // next request only
 *   ... OLLAMA_HOST=fake.url ...
 *   fake.requests.filter((r) => r.path === '/api/chat').length
 *   await fake.close();
 *
 * Modes apply to the generating endpoints (/api/chat, /api/generate); the
 * others always answer normally. A model not in `models` gets Ollama's 404
 * `model "x" not found, try pulling it first` from every model endpoint.
 */
export type FakeAnswer = string | object;

export type FakeMode =
  /** Answer with this content (objects as JSON text), or a function of the request. */
  | { kind: 'good'; answer: FakeAnswer | ((request: FakeRequest) => FakeAnswer) }
  /** Wait, then behave as `after` (default: an empty JSON object answer). */
  | { kind: 'delay'; ms: number; after?: FakeMode }
  /** Never answer (the client's timeout must fire). */
  | { kind: 'hang' }
  /** Answer this HTTP status with Ollama's `{ error }` body. */
  | { kind: 'http'; status: number; error?: string }
  /** Cut the connection without an answer (a reset, for retry tests). */
  | { kind: 'reset' }
  /** A 200 whose message content is not JSON. */
  | { kind: 'invalid-json' }
  /** A 200 whose HTTP body itself is not JSON. */
  | { kind: 'broken-body' }
  /** Valid JSON that fits no sensible schema. */
  | { kind: 'schema-violation' }
  /** A 200 with a body of about `bytes` bytes (default 2 MiB). */
  | { kind: 'huge'; bytes?: number }
  /** Picks vocabulary identifiers sharing a word with the question (see vocabulary-echo.ts). */
  | { kind: 'vocabulary-echo' };

export interface FakeRequest {
  method: string;
  path: string;
  /** Parsed JSON body; undefined for GET or a body that is not JSON. */
  body: Record<string, unknown> | undefined;
  /** Size of the raw request body in bytes. */
  bytes: number;
}

export interface FakeLlmServerOptions {
  /** Installed models; default: any model name is accepted. */
  models?: string[];
  /** Initial mode; default `{ kind: 'good', answer: {} }`. */
  mode?: FakeMode;
  /** Length of /api/embed vectors; default 8. */
  dimensions?: number;
}

export interface FakeLlmServer {
  /** e.g. http://127.0.0.1:40123 — use as OLLAMA_HOST. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: FakeRequest[];
  /** The generating requests (/api/chat and /api/generate) received. */
  generations(): FakeRequest[];
  /** The mode used once the queue is empty. */
  setMode(mode: FakeMode): void;
  /** Modes used one per generating request, before the default mode. */
  queue(...modes: FakeMode[]): void;
  close(): Promise<void>;
}

const GENERATING = new Set(['/api/chat', '/api/generate']);

export async function startFakeLlmServer(
  options: FakeLlmServerOptions = {},
): Promise<FakeLlmServer> {
  const installed = options.models?.map(withTag);
  const dimensions = options.dimensions ?? 8;
  let mode: FakeMode = options.mode ?? { kind: 'good', answer: {} };
  const queued: FakeMode[] = [];
  const requests: FakeRequest[] = [];

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const raw: Buffer[] = [];
    for await (const part of req) raw.push(part as Buffer);
    const text = Buffer.concat(raw).toString('utf8');
    const request: FakeRequest = {
      method: req.method ?? 'GET',
      path: (req.url ?? '/').split('?')[0]!,
      body: parseObject(text),
      bytes: Buffer.byteLength(text),
    };
    requests.push(request);
    const model = typeof request.body?.model === 'string' ? request.body.model : '';
    switch (request.path) {
      case '/api/version':
        return sendJson(res, 200, { version: '0.0.0-fake' });
      case '/api/tags':
        return sendJson(res, 200, { models: (installed ?? []).map(tagEntry) });
    }
    const known = GENERATING.has(request.path) || request.path === '/api/embed';
    if (!known) return sendJson(res, 404, { error: `unknown endpoint ${request.path}` });
    if (installed && !installed.includes(withTag(model))) {
      return sendJson(res, 404, { error: `model "${model}" not found, try pulling it first` });
    }
    if (request.path === '/api/embed') {
      const input = request.body?.input;
      const texts = Array.isArray(input) ? input.map(String) : [String(input ?? '')];
      return sendJson(res, 200, {
        model,
        embeddings: texts.map((t) => pseudoVector(t, dimensions)),
      });
    }
    await behave(res, request, model, queued.shift() ?? mode);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    generations: () => requests.filter((r) => GENERATING.has(r.path)),
    setMode(next) {
      mode = next;
    },
    queue(...modes) {
      queued.push(...modes);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function behave(
  res: ServerResponse,
  request: FakeRequest,
  model: string,
  mode: FakeMode,
): Promise<void> {
  switch (mode.kind) {
    case 'delay':
      await new Promise((r) => setTimeout(r, mode.ms));
      if (res.destroyed) return;
      return behave(res, request, model, mode.after ?? { kind: 'good', answer: {} });
    case 'hang':
      return; // the socket stays open until the client gives up or the server closes
    case 'reset':
      res.socket?.destroy();
      return;
    case 'http':
      return sendJson(res, mode.status, { error: mode.error ?? `fake status ${mode.status}` });
    case 'broken-body':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"model": "x", "message": {"content": ');
      return;
    case 'huge': {
      const content = JSON.stringify({ context: 'x'.repeat(mode.bytes ?? 2 * 1024 * 1024) });
      return sendJson(res, 200, reply(request.path, model, content));
    }
    case 'invalid-json':
      return sendJson(res, 200, reply(request.path, model, 'Sure! Here is the context: {oops'));
    case 'schema-violation':
      return sendJson(res, 200, reply(request.path, model, '{"unexpected": [1, 2, 3]}'));
    case 'vocabulary-echo':
      return sendJson(
        res,
        200,
        reply(request.path, model, JSON.stringify(vocabularyEcho(promptText(request)))),
      );
    case 'good': {
      const answer = typeof mode.answer === 'function' ? mode.answer(request) : mode.answer;
      const content = typeof answer === 'string' ? answer : JSON.stringify(answer);
      return sendJson(res, 200, reply(request.path, model, content));
    }
  }
}

/** All prompt text of a chat or generate request, joined. */
export function promptText(request: FakeRequest): string {
  const body = request.body ?? {};
  if (Array.isArray(body.messages)) {
    return (body.messages as { content?: unknown }[])
      .map((m) => (typeof m.content === 'string' ? m.content : ''))
      .join('\n');
  }
  return [body.system, body.prompt].filter((s) => typeof s === 'string').join('\n');
}

function reply(path: string, model: string, content: string): object {
  const common = {
    model,
    created_at: new Date().toISOString(),
    done: true,
    done_reason: 'stop',
    total_duration: 1000,
    prompt_eval_count: 10,
    eval_count: 10,
  };
  return path === '/api/generate'
    ? { ...common, response: content }
    : { ...common, message: { role: 'assistant', content } };
}

function tagEntry(name: string): object {
  return {
    name,
    model: name,
    modified_at: '2024-01-01T00:00:00Z',
    size: 1000,
    digest: createHash('sha256').update(name).digest('hex'),
    details: { format: 'gguf', family: 'fake', parameter_size: '1M', quantization_level: 'F16' },
  };
}

function pseudoVector(text: string, dimensions: number): number[] {
  const digest = createHash('sha256').update(text).digest();
  return Array.from({ length: dimensions }, (_, i) => digest[i % digest.length]! / 128 - 1);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v = text ? JSON.parse(text) : undefined;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function withTag(model: string): string {
  return model.includes(':') ? model : `${model}:latest`;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
