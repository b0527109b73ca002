import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { DEFAULT_GRPC_PORT, readQueryConfig, serverToken } from './config.js';

test('the environment configures the query service, with clear errors', () => {
  assert.throws(() => readQueryConfig({}), /needs CODESIFT_INDEX/);
  const c = readQueryConfig({ CODESIFT_INDEX: 'data/index.db' });
  assert.equal(c.indexPath, path.resolve('data/index.db'));
  assert.equal(c.port, DEFAULT_GRPC_PORT);
  assert.equal(c.host, '0.0.0.0');
  assert.equal(c.natsUrl, 'nats://127.0.0.1:4222');
  assert.equal(c.token, undefined);
  assert.equal(c.keywordOnly, false);
  const d = readQueryConfig({
    CODESIFT_INDEX: '/x.db',
    CODESIFT_GRPC_PORT: '0',
    CODESIFT_GRPC_HOST: '127.0.0.1',
    CODESIFT_TOKEN: '',
    CODESIFT_EMBEDDER: 'fixed:5',
    NATS_URL: 'nats://nats:4222',
  });
  assert.equal(d.port, 0);
  assert.equal(d.host, '127.0.0.1');
  assert.equal(d.token, undefined, 'an empty token is no token');
  assert.equal(d.keywordOnly, true, 'benchmark vectors are searched by keyword');
  assert.equal(
    readQueryConfig({ CODESIFT_INDEX: '/x', CODESIFT_EMBEDDER: 'none' }).keywordOnly,
    true,
  );
  assert.throws(
    () => readQueryConfig({ CODESIFT_INDEX: '/x', CODESIFT_GRPC_PORT: '70000' }),
    /CODESIFT_GRPC_PORT must be an integer from 0 to 65535/,
  );
  assert.throws(() => readQueryConfig({ CODESIFT_INDEX: '/x', CODESIFT_INDEX_POLL_MS: 'soon' }));
});

test('CODESIFT_STORE=elastic needs no index file but both store URLs', () => {
  const c = readQueryConfig({
    CODESIFT_STORE: 'elastic',
    ES_URL: 'http://es:9200/',
    QDRANT_URL: 'http://qdrant:6333',
  });
  assert.equal(c.indexPath, undefined);
  assert.equal(c.store.kind, 'elastic');
  assert.equal(c.store.kind === 'elastic' && c.store.esUrl, 'http://es:9200');
  assert.throws(
    () => readQueryConfig({ CODESIFT_STORE: 'elastic', ES_URL: 'http://es:9200' }),
    /CODESIFT_STORE=elastic needs QDRANT_URL/,
  );
  assert.throws(
    () => readQueryConfig({ CODESIFT_STORE: 'mongo' }),
    /unknown CODESIFT_STORE 'mongo'/,
  );
});

test('CODESIFT_SEARCH_THREADS: sqlite only, 0..64', () => {
  assert.equal(
    readQueryConfig({ CODESIFT_INDEX: '/x', CODESIFT_SEARCH_THREADS: '3' }).searchThreads,
    3,
  );
  assert.equal(
    readQueryConfig({ CODESIFT_INDEX: '/x', CODESIFT_SEARCH_THREADS: '0' }).searchThreads,
    0,
  );
  assert.throws(
    () => readQueryConfig({ CODESIFT_INDEX: '/x', CODESIFT_SEARCH_THREADS: 'all' }),
    /CODESIFT_SEARCH_THREADS must be an integer from 0 to 64/,
  );
  const elastic = {
    CODESIFT_STORE: 'elastic',
    ES_URL: 'http://e:9200',
    QDRANT_URL: 'http://q:6333',
  };
  assert.equal(readQueryConfig({ ...elastic, CODESIFT_SEARCH_THREADS: '4' }).searchThreads, 0);
});

test('a token is required unless CODESIFT_INSECURE_NO_AUTH=1 on loopback; scan roots default to the working directory', () => {
  const base = { CODESIFT_INDEX: '/x.db' };
  assert.equal(serverToken(readQueryConfig({ ...base, CODESIFT_TOKEN: 'tok' })), 'tok');
  assert.throws(
    () => serverToken(readQueryConfig(base)),
    (e: Error & { hint?: string }) =>
      /the query service needs a bearer token/.test(e.message) &&
      /CODESIFT_INSECURE_NO_AUTH=1/.test(e.hint ?? ''),
  );
  assert.throws(
    () => serverToken(readQueryConfig({ ...base, CODESIFT_INSECURE_NO_AUTH: '1' })),
    /refusing to serve without authentication on 0\.0\.0\.0/,
  );
  const open = readQueryConfig({
    ...base,
    CODESIFT_INSECURE_NO_AUTH: '1',
    CODESIFT_GRPC_HOST: '127.0.0.1',
  });
  assert.equal(serverToken(open), undefined);
  assert.deepEqual(open.scanRoots, [process.cwd()]);
  assert.deepEqual(
    readQueryConfig({ ...base, CODESIFT_SCAN_ROOTS: `/a${path.delimiter}/b` }).scanRoots,
    ['/a', '/b'],
  );
});
