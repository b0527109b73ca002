/** The reply body was larger than the client reads. */
export class ReplyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`reply body over ${limit} bytes`);
    this.name = 'ReplyTooLarge';
  }
}

/**
 * A fetch for the `ollama` client bound to one call: it carries the call's
 * abort signal (the client has no per-request signal for non-streamed calls),
 * reads at most `maxBytes` of the body, and turns a non-JSON error body (a
 * proxy's HTML 502 page) into Ollama's `{ error }` shape, so the client never
 * logs to the console while parsing it.
 */
export function boundedFetch(signal: AbortSignal, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, { ...init, signal });
    let text = await readLimited(res, maxBytes);
    const headers = new Headers({ 'content-type': 'application/json' });
    if (!res.ok && !(res.headers.get('content-type') ?? '').includes('application/json')) {
      text = JSON.stringify({ error: text.trim().slice(0, 200) || res.statusText });
    }
    return new Response(text, { status: res.status, statusText: res.statusText, headers });
  };
}

async function readLimited(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new ReplyTooLarge(maxBytes);
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}
