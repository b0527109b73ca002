// Who may command `codesift serve` and the development cluster: a token
// unless loopback was explicitly opened with --insecure-no-auth, and index
// jobs only under a scan root. Real processes and real gRPC over sockets.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type CodesiftClient, connectCodesift } from '@codesift/grpc';
import { JobState } from '@codesift/proto';
import { type ServiceError, status } from '@grpc/grpc-js';
import { connect } from '@nats-io/transport-node';
import { collect, firstLine, type RunResult, repoRoot, runCli, startCli } from '../support/cli.js';
import { startDevCluster } from '../support/processes.js';
import { writeTree } from '../support/tree.js';

const TOKEN = 'serve-access-token-0123456789abcdef';

const REPO = {
  'src/graph.ts': 'export function addEdge(a: string, b: string): string {\n  return a + b;\n}\n',
  'src/queue.ts': 'export function enqueueItem(item: string): string[] {\n  return [item];\n}\n',
  'README.md': '# Demo\n',
};
const PRIVATE = {
  'secret/keys.ts': 'export const privateSigningMaterial = "not for you";\n',
  'secret/more.ts': 'export const anotherPrivateThing = 2;\n',
};

async function rejectsWith(promise: Promise<unknown>, code: status): Promise<ServiceError> {
  try {
    await promise;
  } catch (err) {
    const e = err as ServiceError;
    assert.equal(e.code, code, `expected ${status[code]}, got ${status[e.code]}: ${e.details}`);
    return e;
  }
  assert.fail(`expected ${status[code]}, but the call succeeded`);
}

/** `codesift serve --json` started; resolves with its address once listening. */
async function serve(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; address: string; done: Promise<RunResult> }> {
  const child = startCli(['serve', '--port', '0', '--json', '--threads', '0', ...args], { env });
  const done = collect(child, 120_000);
  const line = await firstLine(child, 60_000);
  return { child, address: JSON.parse(line).address, done };
}

describe('codesift serve: tokens and scan roots', () => {
  let work: string;
  let scan: string;
  let root: string;
  let outside: string;
  let server: Awaited<ReturnType<typeof serve>>;
  let client: CodesiftClient;

  before(async () => {
    // Real paths: the server compares real paths, and so do these assertions.
    work = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-e2e-access-')));
    scan = path.join(work, 'scan');
    root = path.join(scan, 'repo');
    outside = path.join(work, 'private');
    writeTree(root, REPO);
    writeTree(outside, PRIVATE);
    // Inside the tree, pointing out of it: the door a StartIndex must not open.
    symlinkSync(outside, path.join(root, 'escape'));
    // Inside the scan root, pointing at the indexed tree: the same directory.
    symlinkSync(root, path.join(scan, 'alias'));
    const indexed = await runCli(['index', root, '--no-vectors', '--quiet']);
    assert.equal(indexed.code, 0, indexed.stderr);
    server = await serve(['--index', root, '--no-watch'], { CODESIFT_TOKEN: TOKEN });
    client = connectCodesift(server.address, { token: TOKEN });
  });
  after(async () => {
    client?.close();
    if (server?.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.done;
    }
    rmSync(work, { recursive: true, force: true });
  });

  test('StartIndex outside the scan root, through a symlink or with .. is PERMISSION_DENIED and changes nothing', async () => {
    const before = await client.index.getIndexStatus({});
    assert.equal(before.files, BigInt(Object.keys(REPO).length));
    assert.equal(before.job, undefined);
    for (const bad of [
      outside,
      path.join(root, 'escape'),
      `${root}/../../private`,
      path.join(root, 'src', '..', '..'),
      '/',
    ]) {
      const e = await rejectsWith(
        client.index.startIndex({ root: bad, noVectors: true, rebuild: true }),
        status.PERMISSION_DENIED,
      );
      assert.match(e.details, /outside the scan roots/, bad);
      assert.match(e.details, /--scan-root/, 'the hint says how to allow a directory');
    }
    const afterRefusals = await client.index.getIndexStatus({});
    assert.equal(afterRefusals.files, before.files, 'the index keeps its files');
    assert.equal(afterRefusals.chunks, before.chunks);
    assert.equal(afterRefusals.job, undefined, 'no job was queued');
    const leaked = await client.search.search({ query: 'privateSigningMaterial' });
    assert.equal(leaked.results.length, 0);
  });

  test('the indexed root, also by a symlink inside the scan root, is re-indexed', async () => {
    writeFileSync(path.join(root, 'src', 'added.ts'), 'export const addedLater = 1;\n');
    for (const name of [root, path.join(scan, 'alias')]) {
      const { jobId } = await client.index.startIndex({ root: name, noVectors: true });
      let last: JobState | undefined;
      let error = '';
      for await (const m of client.index.watchIndexProgress({ jobId }, { deadlineMs: 60_000 })) {
        last = m.progress!.state;
        error = m.progress!.error;
      }
      assert.equal(last, JobState.SUCCEEDED, error);
    }
    const st = await client.index.getIndexStatus({});
    assert.equal(st.files, BigInt(Object.keys(REPO).length + 1));
    assert.equal(st.root, root);
  });

  test('a wrong token is UNAUTHENTICATED; --remote says so with the fix', async () => {
    const wrong = connectCodesift(server.address, { token: 'not-the-token-at-all-0000' });
    try {
      const e = await rejectsWith(
        wrong.search.search({ query: 'addEdge' }),
        status.UNAUTHENTICATED,
      );
      assert.match(e.details, /invalid token/);
      await rejectsWith(wrong.index.startIndex({ root }), status.UNAUTHENTICATED);
    } finally {
      wrong.close();
    }
    const cli = await runCli(['search', '--remote', server.address, 'addEdge'], {
      env: { CODESIFT_TOKEN: 'not-the-token-at-all-0000' },
    });
    assert.notEqual(cli.code, 0);
    assert.match(cli.stderr, /refused the call: invalid token/);
    assert.match(cli.stderr, /--token or CODESIFT_TOKEN/);
    const ok = await runCli(['search', '--remote', server.address, 'addEdge', '--json'], {
      env: { CODESIFT_TOKEN: TOKEN },
    });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout).results[0].path, 'src/graph.ts');
  });

  test('--scan-root widens what StartIndex may name; the indexed root must stay under it', async () => {
    const narrow = await runCli(
      ['serve', '--index', root, '--insecure-no-auth', '--scan-root', outside],
      { timeoutMs: 60_000 },
    );
    assert.equal(narrow.code, 1, narrow.stderr);
    assert.match(narrow.stderr, /the indexed directory .* is outside the scan roots/);
    assert.match(narrow.stderr, /--scan-root that contains it/);
    const wide = await serve(['--index', root, '--no-watch', '--insecure-no-auth'], {
      CODESIFT_SCAN_ROOTS: [path.join(work, 'elsewhere'), scan].join(path.delimiter),
    });
    const anonymous = connectCodesift(wide.address);
    try {
      // Under a scan root but not this server's tree: refused as before, not a permission matter.
      await rejectsWith(
        anonymous.index.startIndex({ root: path.join(scan, 'alias', 'src') }),
        status.INVALID_ARGUMENT,
      );
      await rejectsWith(anonymous.index.startIndex({ root: outside }), status.PERMISSION_DENIED);
    } finally {
      anonymous.close();
      wide.child.kill('SIGTERM');
      assert.equal((await wide.done).code, 0);
    }
  });

  test('no token: refused on every host unless --insecure-no-auth, which loopback alone may use', async () => {
    const cases: { args: string[]; message: RegExp }[] = [
      { args: ['--host', '0.0.0.0'], message: /codesift serve needs a bearer token/ },
      { args: ['--host', '127.0.0.1'], message: /codesift serve needs a bearer token/ },
      {
        args: ['--host', '0.0.0.0', '--insecure-no-auth'],
        message: /refusing to serve without authentication on 0\.0\.0\.0/,
      },
    ];
    for (const { args, message } of cases) {
      const r = await runCli(['serve', '--index', root, '--port', '0', ...args], {
        env: { CODESIFT_TOKEN: '' },
        timeoutMs: 60_000,
      });
      assert.notEqual(r.code, 0, args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
      assert.match(r.stderr, /--token|CODESIFT_TOKEN/);
      assert.doesNotMatch(r.stderr, /listening/);
    }
    const open = await serve(['--index', root, '--no-watch', '--insecure-no-auth'], {
      CODESIFT_TOKEN: '',
    });
    const anonymous = connectCodesift(open.address);
    try {
      const res = await anonymous.search.search({ query: 'addEdge' });
      assert.equal(res.results[0]?.path, 'src/graph.ts');
    } finally {
      anonymous.close();
      open.child.kill('SIGTERM');
      const done = await open.done;
      assert.equal(done.code, 0);
      assert.match(done.stderr, /serving without authentication/);
    }
  });
});

describe('npm run cluster: a token unless --insecure-no-auth', () => {
  test('refuses to start without one, before starting anything', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'codesift-e2e-cluster-auth-'));
    try {
      const proc = spawn(
        process.execPath,
        [path.join(repoRoot, 'scripts', 'cluster.mjs'), '--dir', path.join(dir, 'c')],
        {
          cwd: dir,
          env: { ...process.env, CODESIFT_TOKEN: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const r = await collect(proc, 30_000);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /needs a bearer token/);
      assert.match(r.stderr, /--insecure-no-auth/);
      assert.doesNotMatch(r.stdout, /^up /m, 'nothing was started');
      assert.equal(existsSync(path.join(dir, 'c')), false, 'not even its directory');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("NATS takes only the cluster's user and password (generated, or from the environment), kept in nats.env for the owner alone", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'codesift-e2e-cluster-nats-auth-'));
    const refused = async (servers: string, auth: { user?: string; pass?: string }) => {
      try {
        const nc = await connect({ servers, ...auth, reconnect: false, timeout: 5000 });
        await nc.close();
        return '';
      } catch (err) {
        return String((err as Error).message);
      }
    };
    try {
      const c = await startDevCluster({ dir: path.join(dir, 'generated'), cwd: dir });
      try {
        const envFile = path.join(dir, 'generated', 'nats.env');
        assert.equal(statSync(envFile).mode & 0o777, 0o600, 'nats.env is for its owner alone');
        assert.equal(c.natsEnv.NATS_USER, 'codesift');
        // Hex after a letter: a password that began like a number (1e5...) would be
        // parsed as one by nats-server's config and stop it from starting.
        assert.match(String(c.natsEnv.NATS_PASSWORD), /^k[0-9a-f]{48}$/);
        assert.match(c.output(), /NATS credentials: .*nats\.env/);
        // Another local user, without the password: no way onto the bus.
        assert.match(await refused(c.natsUrl, {}), /authorization|authentication/i);
        assert.match(
          await refused(c.natsUrl, { user: 'codesift', pass: 'guess' }),
          /authorization|authentication/i,
        );
        assert.equal(
          await refused(c.natsUrl, { user: c.natsEnv.NATS_USER, pass: c.natsEnv.NATS_PASSWORD }),
          '',
        );
        // A NATS client without them says why.
        const blind = await runCli(['index', '--remote', c.natsUrl, dir, '--json']);
        assert.notEqual(blind.code, 0);
      } finally {
        c.proc.kill('SIGTERM');
        await c.exited;
      }
      // A password nats-server's config would read as a number is refused up front.
      const numeric = spawn(
        process.execPath,
        [
          path.join(repoRoot, 'scripts', 'cluster.mjs'),
          '--dir',
          path.join(dir, 'numeric'),
          '--insecure-no-auth',
        ],
        {
          cwd: dir,
          env: { ...process.env, NATS_USER: 'ops', NATS_PASSWORD: '1e5abc', CODESIFT_TOKEN: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const refusedStart = await collect(numeric, 30_000);
      assert.equal(refusedStart.code, 2, refusedStart.stderr);
      assert.match(refusedStart.stderr, /NATS_PASSWORD must start with a letter/);
      assert.doesNotMatch(refusedStart.stdout, /^up /m, 'nothing was started');
      // Credentials of the operator's choosing, from the environment.
      const chosen = { NATS_USER: 'ops', NATS_PASSWORD: 'chosen-password-0123456789' };
      const d = await startDevCluster({ dir: path.join(dir, 'chosen'), cwd: dir, env: chosen });
      try {
        assert.deepEqual(d.natsEnv, chosen);
        assert.equal(await refused(d.natsUrl, { user: 'ops', pass: chosen.NATS_PASSWORD }), '');
        assert.match(await refused(d.natsUrl, {}), /authorization|authentication/i);
      } finally {
        d.proc.kill('SIGTERM');
        await d.exited;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
