// Request/reply services against a real nats-server: replies, error
// replies, no responders, timeouts, and replicas sharing one queue group.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { requestService, SERVICE_NAMES, SERVICES, serveRequests } from './services.js';
import { SUBJECT_PREFIX, WORK_QUEUES } from './subjects.js';
import { type NatsServerHandle, startNatsServer } from './testing/nats-server.js';

describe('request/reply services', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
  });
  after(async () => {
    await nc?.close();
    await server?.stop();
  });

  test('subjects are unique, under the prefix, and apart from the work queues', () => {
    const subjects = SERVICE_NAMES.map((n) => SERVICES[n].subject);
    assert.equal(new Set(subjects).size, subjects.length);
    for (const s of subjects) assert.ok(s.startsWith(`${SUBJECT_PREFIX}.svc.`), s);
    const work = new Set<string>(Object.values(WORK_QUEUES).map((q) => q.subject));
    for (const s of subjects) assert.ok(!work.has(s));
  });

  test('a request gets the handler’s reply, decoded', async () => {
    const r = serveRequests(nc, 'symbolCount', () => ({ count: 42n }));
    try {
      const res = await requestService(nc, 'symbolCount', {});
      assert.equal(res.count, 42n);
      assert.equal(r.answered, 1);
    } finally {
      await r.stop();
    }
  });

  test('a handler error comes back as a CodesiftError with its code and hint', async () => {
    const r = serveRequests(nc, 'symbolLookup', (req) => {
      throw new CodesiftError('INVALID_ARGUMENT', `bad name ${req.name}\nsecond line`, {
        hint: 'pass a name\nthat exists',
      });
    });
    try {
      await assert.rejects(requestService(nc, 'symbolLookup', { name: 'x' }), (err) => {
        assert.ok(err instanceof CodesiftError);
        assert.equal(err.code, 'INVALID_ARGUMENT');
        assert.match(err.message, /^symbols: bad name x second line$/);
        assert.equal(err.hint, 'pass a name that exists');
        return true;
      });
      const plain = serveRequests(nc, 'symbolVocabulary', () => {
        throw new Error('disk on fire');
      });
      try {
        await assert.rejects(requestService(nc, 'symbolVocabulary', {}), {
          code: 'INTERNAL',
          message: /disk on fire/,
          hint: undefined,
        });
      } finally {
        await plain.stop();
      }
    } finally {
      await r.stop();
    }
  });

  test('no responders is reported at once, and says which service to start', async () => {
    const started = performance.now();
    await assert.rejects(requestService(nc, 'manifestPage', {}, { timeoutMs: 5000 }), (err) => {
      assert.ok(err instanceof CodesiftError);
      assert.match(err.message, /no writer service answers codesift\.svc\.manifest\.page/);
      assert.match(err.hint ?? '', /codesift-worker writer/);
      return true;
    });
    assert.ok(performance.now() - started < 2000, 'did not wait for the timeout');
  });

  test('a slow service times out with TIMEOUT', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const r = serveRequests(nc, 'symbolCount', async () => {
      await gate;
      return { count: 1n };
    });
    try {
      await assert.rejects(requestService(nc, 'symbolCount', {}, { timeoutMs: 200 }), {
        code: 'TIMEOUT',
        message: /did not answer symbolCount within 200 ms/,
      });
    } finally {
      release();
      await r.stop();
    }
  });

  test('replicas share the requests: each is answered exactly once', async () => {
    const seen: string[][] = [[], []];
    const replicas = [0, 1].map((i) =>
      serveRequests(nc, 'symbolLookup', async (req) => {
        seen[i]!.push(req.name);
        // Slow enough that both replicas hold requests at once.
        await new Promise((res) => setTimeout(res, 5));
        return { symbols: [{ name: req.name, id: `${i}` }] };
      }),
    );
    try {
      const names = Array.from({ length: 60 }, (_, i) => `n${i}`);
      const replies = await Promise.all(
        names.map((name) => requestService(nc, 'symbolLookup', { name })),
      );
      assert.deepEqual(
        replies.map((r) => r.symbols[0]?.name),
        names,
      );
      assert.equal(seen[0]!.length + seen[1]!.length, names.length, 'each answered once');
      assert.ok(
        seen[0]!.length > 0 && seen[1]!.length > 0,
        `both replicas answered: ${seen[0]!.length}/${seen[1]!.length}`,
      );
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
    }
  });

  test('stop lets a reply in flight go out, then takes no more requests', async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => {
      entered = r;
    });
    const r = serveRequests(nc, 'symbolCount', async () => {
      entered();
      await new Promise((res) => setTimeout(res, 100));
      return { count: 7n };
    });
    const pending = requestService(nc, 'symbolCount', {});
    await inHandler;
    await r.stop();
    assert.equal((await pending).count, 7n);
    await assert.rejects(requestService(nc, 'symbolCount', {}), /no symbols service answers/);
  });
});
