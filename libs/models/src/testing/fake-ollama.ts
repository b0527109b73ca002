import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for an Ollama server on loopback, for tests: speaks /api/embed,
 * /api/chat, /api/tags and /api/version with the shapes of Ollama's REST API,
 * and lets a test script answers, delays and faults per endpoint.
 *
 *   const fake = await startFakeOllama({ models: ['nomic-embed-text'] });
 *   fake.enqueue('/api/chat', { chat: { summary: 'parses args' } });
 *   fake.enqueue('/api/embed', { status: 500, error: 'boom' }, { delayMs: 5000 });
 *   ... new Ollama({ host: fake.url }) ...
 *   await fake.close();
 */

export type FakeEndpoint = '/api/embed' | '/api/chat' | '/api/tags' | '/api/version';

/** What the fake does for one request. Fields combine: delay, then answer. */
export interface FakeReply {
  /** Wait this long before answering (the client's timeout can fire first). */
  delayMs?: number;
  /** HTTP status, default 200. */
  status?: number;
  /** JSON body sent as is. */
  json?: unknown;
  /** Body sent as is (e.g. broken JSON), with content-type text/plain unless json. */
  raw?: string;
  /** Shorthand for an Ollama error body { error } (status defaults to 500). */
  error?: string;
  /** /api/chat: the assistant message; objects are sent as JSON text, as with format: 'json'. */
  chat?: string | object;
  /** /api/embed: these vectors instead of the default ones. */
  embeddings?: unknown;
  /** Close the connection without answering. */
  hangUp?: boolean;
}

/** A scripted reply, or a function of the parsed request body returning one. */
export type FakeScript = FakeReply | ((request: FakeRequest) => FakeReply | Promise<FakeReply>);

export interface FakeRequest {
  method: string;
  path: string;
  /** Parsed JSON body (undefined for GET or a non-JSON body). */
  body: Record<string, unknown> | undefined;
}

export interface FakeOllamaOptions {
  /**
   * Installed models, for /api/tags; embed/chat with any other model get
   * Ollama's 404 "model not found". Default: every model is installed.
   */
  models?: string[];
  /** Length of the default embedding vectors, default 8. */
  dimensions?: number;
}

export interface FakeOllama {
  /** Base URL, e.g. http://127.0.0.1:54321 — pass as host / OLLAMA_HOST. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: FakeRequest[];
  /** Queues replies for an endpoint, used one per request before the default behaviour. */
  enqueue(endpoint: FakeEndpoint, ...replies: FakeScript[]): void;
  /** Replaces the default behaviour of an endpoint (used once its queue is empty). */
  setDefault(endpoint: FakeEndpoint, script: FakeScript | undefined): void;
  /** Stops the server, cutting open connections. */
  close(): Promise<void>;
}

/** Deterministic, unnormalised pseudo-embedding of a text (same text, same vector). */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const out: number[] = [];
  for (let block = 0; out.length < dimensions; block++) {
    const digest = createHash('sha256').update(`${block}\0${text}`).digest();
    for (let i = 0; i + 1 < digest.length && out.length < dimensions; i += 2) {
      out.push((digest.readUInt16LE(i) / 65535) * 4 - 2);
    }
  }
  return out;
}

export async function startFakeOllama(options: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const dimensions = options.dimensions ?? 8;
  const installed = options.models?.map(withTag);
  const queues = new Map<FakeEndpoint, FakeScript[]>();
  const defaults = new Map<FakeEndpoint, FakeScript>();
  const requests: FakeRequest[] = [];

  const modelMissing = (body: FakeRequest['body']): string | undefined => {
    const model = typeof body?.model === 'string' ? body.model : '';
    if (!installed || installed.includes(withTag(model))) return undefined;
    return `model "${model}" not found, try pulling it first`;
  };

  const builtIn = (endpoint: FakeEndpoint, req: FakeRequest): FakeReply => {
    switch (endpoint) {
      case '/api/tags':
        return {
          json: {
            models: (installed ?? []).map((name) => ({
              name,
              model: name,
              modified_at: '2024-01-01T00:00:00Z',
              size: 1000,
              digest: createHash('sha256').update(name).digest('hex'),
              details: {
                parent_model: '',
                format: 'gguf',
                family: 'fake',
                families: ['fake'],
                parameter_size: '1M',
                quantization_level: 'F16',
              },
            })),
          },
        };
      case '/api/version':
        return { json: { version: '0.0.0-fake' } };
      case '/api/embed': {
        const missing = modelMissing(req.body);
        if (missing) return { status: 404, error: missing };
        return {};
      }
      case '/api/chat': {
        const missing = modelMissing(req.body);
        if (missing) return { status: 404, error: missing };
        return { chat: '' };
      }
    }
  };

  const answer = async (
    res: ServerResponse,
    endpoint: FakeEndpoint,
    req: FakeRequest,
    reply: FakeReply,
  ): Promise<void> => {
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (reply.hangUp) {
      res.socket?.destroy();
      return;
    }
    if (res.destroyed) return;
    if (reply.error !== undefined) return send(res, reply.status ?? 500, { error: reply.error });
    if (reply.raw !== undefined) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain' });
      res.end(reply.raw);
      return;
    }
    if (reply.json !== undefined) return send(res, reply.status ?? 200, reply.json);
    const model = typeof req.body?.model === 'string' ? req.body.model : '';
    if (endpoint === '/api/embed') {
      const input = req.body?.input;
      const texts = Array.isArray(input) ? input.map(String) : [String(input ?? '')];
      const embeddings = reply.embeddings ?? texts.map((t) => fakeEmbedding(t, dimensions));
      return send(res, reply.status ?? 200, {
        model,
        embeddings,
        total_duration: 1000,
        load_duration: 100,
        prompt_eval_count: texts.length,
      });
    }
    if (endpoint === '/api/chat') {
      const content =
        typeof reply.chat === 'string' ? reply.chat : JSON.stringify(reply.chat ?? '');
      const done = {
        model,
        created_at: new Date().toISOString(),
        message: { role: 'assistant', content },
        done: true,
        done_reason: 'stop',
        total_duration: 1000,
        load_duration: 100,
        prompt_eval_count: 10,
        prompt_eval_duration: 100,
        eval_count: 10,
        eval_duration: 100,
      };
      if (req.body?.stream === false) return send(res, reply.status ?? 200, done);
      // Ollama streams by default: NDJSON, content first, then the final "done" record.
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/x-ndjson' });
      res.write(`${JSON.stringify({ ...done, done: false, done_reason: undefined })}\n`);
      res.end(`${JSON.stringify({ ...done, message: { role: 'assistant', content: '' } })}\n`);
      return;
    }
    send(res, reply.status ?? 200, {});
  };

  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      let body: FakeRequest['body'];
      try {
        body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      } catch {
        body = undefined;
      }
      const path = (req.url ?? '/').split('?')[0]!;
      const request: FakeRequest = { method: req.method ?? 'GET', path, body };
      requests.push(request);
      const endpoint = ENDPOINTS.find((e) => e === path);
      if (!endpoint) return send(res, 404, { error: `unknown endpoint ${path}` });
      const script =
        queues.get(endpoint)?.shift() ?? defaults.get(endpoint) ?? builtIn(endpoint, request);
      const reply = typeof script === 'function' ? await script(request) : script;
      await answer(res, endpoint, request, reply);
    } catch (err) {
      if (!res.headersSent) send(res, 500, { error: `fake-ollama: ${String(err)}` });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue(endpoint, ...replies) {
      const q = queues.get(endpoint) ?? [];
      q.push(...replies);
      queues.set(endpoint, q);
    },
    setDefault(endpoint, script) {
      if (script) defaults.set(endpoint, script);
      else defaults.delete(endpoint);
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

const ENDPOINTS: FakeEndpoint[] = ['/api/embed', '/api/chat', '/api/tags', '/api/version'];

function withTag(model: string): string {
  return model.includes(':') ? model : `${model}:latest`;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
