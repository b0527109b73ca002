// Reading one subject of a limits stream from its first message on, the way
// job watchers do, in a way that survives a nats-server restart.
//
// An ordered consumer is ephemeral: a server killed and restarted loses it.
// nats.js (3.4) notices and recreates it (status `reset`, then
// `ordered_consumer_recreated`), but the recreated consumer's `consume()`
// delivers one short pull and then nothing more: a job watcher waited
// forever while the job finished (tests/e2e/cluster-crash restarts the
// server mid-job). So every such event ends this consumer, and a fresh one
// starts after the last stream sequence delivered: nothing is skipped and
// nothing is delivered twice.
import { DeliverPolicy, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import { isConnectionClosed } from './consumer.js';

export interface FollowOptions {
  /** Ends the iteration (the current consumer is closed). */
  signal?: AbortSignal;
  /** Wait between attempts to start a consumer while JetStream is unavailable; default 250 ms. */
  retryMs?: number;
  /** Told about each consumer that ended early and is being replaced (logs, tests). */
  onRestart?: (reason: string) => void;
}

/** Statuses after which the consumer is not trusted to deliver anymore. */
const RESTART_ON = new Set(['reset', 'ordered_consumer_recreated', 'consumer_deleted']);

/**
 * Every message of `subject` in `stream`, in order, from the first: an
 * async iterable that ends when the caller stops iterating or `signal`
 * aborts. Gaps in service (a restarted server) only delay it.
 */
export async function* followSubject(
  js: JetStreamClient,
  stream: string,
  subject: string,
  opts: FollowOptions = {},
): AsyncGenerator<JsMsg> {
  const { signal } = opts;
  let lastSeq = 0;
  while (!signal?.aborted) {
    let messages: Awaited<ReturnType<Awaited<ReturnType<typeof js.consumers.get>>['consume']>>;
    try {
      const consumer = await js.consumers.get(stream, {
        // One subject as a string: nats-server 2.9 (Debian) rejects the array form.
        filter_subjects: subject,
        ...(lastSeq > 0
          ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: lastSeq + 1 }
          : {}),
      });
      messages = await consumer.consume();
    } catch (err) {
      // A closed connection never comes back: the iteration ends, as a consumer's would.
      if (isConnectionClosed(err)) return;
      // JetStream is still recovering (or the connection is reconnecting): try again.
      opts.onRestart?.(`consumer could not start: ${(err as Error).message}`);
      await sleep(opts.retryMs ?? 250, signal);
      continue;
    }
    let restarted = false;
    const stop = () => void messages.close();
    signal?.addEventListener('abort', stop, { once: true });
    void (async () => {
      for await (const s of messages.status()) {
        if (RESTART_ON.has(s.type)) {
          restarted = true;
          opts.onRestart?.(s.type);
          stop();
          return;
        }
      }
    })().catch(() => undefined);
    try {
      for await (const m of messages) {
        // Redelivery after a restart starts after lastSeq; this guards the overlap anyway.
        if (m.seq <= lastSeq) continue;
        lastSeq = m.seq;
        yield m;
      }
    } finally {
      signal?.removeEventListener('abort', stop);
      await messages.close();
    }
    if (!restarted) return;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
