// Fault soak: three repositories indexed at once through the cluster (every
// stage its own process, a real nats-server whose JetStream file store lives
// in a temp dir) while a seeded chaos loop SIGKILLs random workers and starts
// fresh ones, nats-server is restarted once, and the embedders are slow (a
// batch takes longer than the ack wait, so only their progress heartbeats
// keep it theirs). Every repository must end exactly as local mode indexes
// it, and the only dead letter is the one poisoned on purpose. The counts
// (kills survived, redeliveries, duplicates dropped) go to the test output;
// docs/BENCHMARKS.md records runs. CODESIFT_SOAK_SEED picks another
// sequence of kills.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ensureStreams, readDeadLetters, WORK_QUEUES, type WorkQueue } from '@codesift/bus';
import { type NatsServerHandle, startNatsServer } from '@codesift/bus/testing';
import { fetchManifest, submitIndexJob, watchJob } from '@codesift/cluster-services';
import { indexRepository } from '@codesift/pipeline';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import Database from 'better-sqlite3';
import { indexSnapshot } from '../support/index-snapshot.js';
import { startWorker, type Worker } from '../support/processes.js';
import { serviceTree } from '../support/service-tree.js';
import { writeTree } from '../support/tree.js';

const SEED = Number(process.env.CODESIFT_SOAK_SEED ?? 20261125);
const REPOS = ['soak-alpha', 'soak-beta', 'soak-gamma'] as const;
const FILES = 48;
/** Stages the chaos loop may kill; two embedders share the slow work. */
const STAGES = ['chunker', 'contextualizer', 'embedder', 'embedder', 'writer', 'symbols'];
/** Per-chunk embedding time of a fresh embedder, drawn per start: a batch of 8 files outlasts the 1 s ack wait. */
const EMBED_MS = [30, 90];
const MAX_KILLS = 12;
const KILLS_PER_STAGE = 2;
/**
 * The chaos step at which nats-server restarts instead of a worker dying: the
 * first, so that a quiet machine, which finishes the jobs in about 10 s, still
 * restarts it mid-run.
 */
const RESTART_AT_STEP = 0;

/** MINSTD, a linear congruential generator: the chaos replays exactly for a seed. */
function seeded(seed: number): () => number {
  const m = 2 ** 31 - 1;
  let x = (Math.abs(Math.floor(seed)) % (m - 1)) + 1;
  return () => {
    x = (x * 48271) % m;
    return x / m;
  };
}

type Row = Record<string, unknown>;

/**
 * One repository's part of the cluster index as local mode would write it:
 * its rows with the `<repo>/` prefix taken out of every text (paths, and
 * pattern contexts, which name the path and its words) and ids left out
 * (they hash the path).
 */
function repositoryPart(snapshot: ReturnType<typeof indexSnapshot>, repo: string) {
  const prefix = `${repo}/`;
  const pathWords = `(${repo.replaceAll('-', ' ')} `;
  const strip = (rows: Row[]) =>
    rows
      .filter((r) => String(r.path).startsWith(prefix))
      .map((r) => normalized(r, (v) => v.replaceAll(prefix, '').replaceAll(pathWords, '(')));
  return {
    files: strip(snapshot.files as Row[]),
    chunks: strip(snapshot.chunks),
    symbols: strip(snapshot.symbols as Row[]),
  };
}

function normalized(r: Row, text: (v: string) => string = (v) => v): string {
  const out: Row = {};
  for (const [k, v] of Object.entries(r))
    if (k !== 'id') out[k] = typeof v === 'string' ? text(v) : v;
  return JSON.stringify(out);
}

function localPart(snapshot: ReturnType<typeof indexSnapshot>) {
  const all = (rows: Row[]) => rows.map((r) => normalized(r));
  return {
    files: all(snapshot.files as Row[]),
    chunks: all(snapshot.chunks),
    symbols: all(snapshot.symbols as Row[]),
  };
}

/** The repository's tree; `alpha`, not the whole name, in its identifiers: contexts name the path's words. */
const fixture = (repo: string) => serviceTree(FILES, `${repo.split('-')[1]}_`);

const sorted = (p: Record<string, string[]>) =>
  Object.fromEntries(Object.entries(p).map(([k, v]) => [k, [...v].sort()]));

describe('cluster fault soak: three repositories, killed workers, a restarted nats-server, slow embedders', () => {
  let work: string;
  let server: NatsServerHandle;
  let nc: NatsConnection;
  const workers: Worker[] = [];

  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-cluster-soak-'));
    server = await startNatsServer();
    nc = await connect({ servers: server.url, name: 'codesift-cluster-soak-test' });
  });
  after(async () => {
    for (const w of workers)
      if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exit));
    await nc?.close().catch(() => undefined);
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  test('every repository ends as local mode indexes it; only the poisoned message is dead-lettered', async (t) => {
    const random = seeded(SEED);
    const clusterDb = path.join(work, 'cluster', 'index.db');
    const roots = Object.fromEntries(REPOS.map((r) => [r, path.join(work, 'checkouts', r)]));
    for (const repo of REPOS) writeTree(roots[repo]!, fixture(repo));

    const env = (stage: string) => ({
      NATS_URL: server.url,
      CODESIFT_INDEX: clusterDb,
      CODESIFT_EMBEDDER: `fixed:${stage === 'embedder' ? EMBED_MS[Math.floor(random() * EMBED_MS.length)] : 0}`,
      // Info: the workers log the duplicates they saw dropped.
      CODESIFT_LOG_LEVEL: 'info',
      // Work held by a killed replica goes back to the queue after 1 s.
      CODESIFT_ACK_WAIT_MS: '1000',
    });
    const live: Worker[] = [];
    const spawn = (stage: string) => {
      const w = startWorker(stage, env(stage));
      workers.push(w);
      live.push(w);
    };
    for (const stage of STAGES) spawn(stage);
    const logs = () =>
      workers.map((w) => `--- ${w.stage} (pid ${w.proc.pid})\n${w.log}`).join('\n');

    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm);
    // The poisoned message: no stage can decode it, so it goes to the dead letters at once.
    await js.publish(WORK_QUEUES.files.subject, new TextEncoder().encode('not a protobuf batch'));

    const started = performance.now();
    const jobs = await Promise.all(
      REPOS.map((repo) =>
        submitIndexJob(
          js,
          roots[repo]!,
          () =>
            fetchManifest(nc, { root: roots[repo]!, repository: repo, waitForServiceMs: 60_000 }),
          {
            repository: repo,
            batch: { maxFiles: 8 },
          },
        ),
      ),
    );
    for (const job of jobs) assert.equal(job.filesSent, FILES);

    // The chaos loop: until every job is done (or MAX_KILLS), every 0.3-0.9 s
    // one live worker is SIGKILLed and a fresh one of its stage started; at
    // one step nats-server restarts instead (SIGTERM, as a rolling restart does).
    let done = false;
    let kills = 0;
    let restartedAt = -1;
    const killedStages: string[] = [];
    let filesDone = 0;
    const chaos = (async () => {
      for (let step = 0; !done && kills < MAX_KILLS; step++) {
        await new Promise((r) => setTimeout(r, 300 + random() * 600));
        if (done) break;
        if (step === RESTART_AT_STEP) {
          restartedAt = filesDone;
          await server.restart({ hard: false });
          continue;
        }
        // At most KILLS_PER_STAGE kills of a stage, never twice in a row: a
        // batch in flight through one stage killed again and again would rightly
        // run out of attempts (5) and be dead-lettered, which is the poison rule
        // working, not this test's subject.
        const last = killedStages[killedStages.length - 1];
        const killsOf = (stage: string) => killedStages.filter((k) => k === stage).length;
        const pool = live.filter((w) => w.stage !== last && killsOf(w.stage) < KILLS_PER_STAGE);
        if (pool.length === 0) break;
        const victim = pool[Math.floor(random() * pool.length)]!;
        live.splice(live.indexOf(victim), 1);
        victim.proc.kill('SIGKILL');
        await victim.exit;
        kills++;
        killedStages.push(victim.stage);
        spawn(victim.stage);
      }
    })();

    const perJob = new Map<string, number>();
    const progress = await Promise.all(
      jobs.map((job) =>
        watchJob(js, job.jobId, {
          timeoutMs: 180_000,
          onProgress: (p) => {
            perJob.set(job.jobId, p.filesDone);
            filesDone = [...perJob.values()].reduce((a, n) => a + n, 0);
          },
        }),
      ),
    )
      .catch((err) => {
        throw new Error(`${err.message}\n${logs()}`);
      })
      .finally(() => {
        done = true;
      });
    await chaos;
    const seconds = (performance.now() - started) / 1000;

    // Redeliveries: deliveries past the first, per work queue (the consumers'
    // state survives the restart in the file store).
    let redeliveries = 0;
    for (const q of Object.keys(WORK_QUEUES) as WorkQueue[]) {
      const info = await jsm.consumers
        .info(WORK_QUEUES[q].stream, WORK_QUEUES[q].durable)
        .catch(() => null);
      if (info) redeliveries += info.delivered.consumer_seq - info.delivered.stream_seq;
    }
    // Batches stored more than once on the queues whose batches map one to
    // one to the scanner's (the embedder may split one). Publishing a batch
    // again is dropped by its message id, except after the server restart
    // for one already consumed before it: JetStream rebuilds its duplicate
    // window from the messages still stored, and a work queue keeps none it
    // delivered. Processing it twice is harmless (writes replace whole files).
    const batches = jobs.reduce((a, j) => a + j.messagesSent, 0);
    let storedAgain = 0;
    for (const q of ['chunks', 'contextualized', 'symbols'] as const) {
      const stored = (await jsm.streams.info(WORK_QUEUES[q].stream)).state.last_seq;
      assert.ok(stored >= batches, `${q}: ${stored} messages stored for ${batches} batches`);
      storedAgain += stored - batches;
    }
    const duplicates = workers
      .flatMap((w) => w.log.split('\n'))
      .filter((l) => l.includes('"msg":"duplicates dropped"'))
      .reduce((a, l) => a + Number(JSON.parse(l).duplicates), 0);
    t.diagnostic(
      `seed ${SEED}: ${REPOS.length} x ${FILES} files in ${seconds.toFixed(1)} s; kills survived ${kills} (${killedStages.join(' ')}); nats-server restarted at ${restartedAt} files done; redeliveries ${redeliveries}; duplicates dropped ${duplicates}; batches stored again ${storedAgain}`,
    );
    for (const p of progress) {
      assert.equal(p.filesDone, FILES, logs());
      assert.equal(p.filesFailed, 0, logs());
    }
    assert.ok(restartedAt >= 0, 'nats-server was restarted mid-run');
    assert.ok(kills >= 3, `only ${kills} kills before the jobs ended`);
    const letters = await readDeadLetters(js, { expiresMs: 1000 });
    assert.deepEqual(
      letters.map((l) => [l.letter.subject, l.letter.reason.split(':')[0]]),
      [[WORK_QUEUES.files.subject, 'decode']],
      'only the poisoned message is dead-lettered',
    );

    const cluster = indexSnapshot(clusterDb);
    for (const repo of REPOS) {
      const localDb = path.join(work, 'local', repo, 'index.db');
      await indexRepository({ root: roots[repo]!, indexPath: localDb, vectors: false });
      const want = sorted(localPart(indexSnapshot(localDb)));
      const got = sorted(repositoryPart(cluster, repo));
      assert.equal(got.files!.length, FILES);
      assert.ok(got.chunks!.length > FILES, `${repo}: ${got.chunks!.length} chunks`);
      assert.deepEqual(got, want, `${repo}: the cluster holds what local mode holds`);
    }
    const db = new Database(clusterDb, { readonly: true });
    try {
      const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      // One vector per chunk: none lost, none left over from a repeated write.
      assert.equal(
        count('SELECT count(*) AS n FROM vector_rows'),
        count('SELECT count(*) AS n FROM chunks'),
      );
      assert.equal(
        count('SELECT count(*) AS n FROM vector_rows WHERE id NOT IN (SELECT id FROM chunks)'),
        0,
      );
      // The texts kept for snippets are the files' texts.
      for (const repo of REPOS) {
        for (const rel of Object.keys(fixture(repo))) {
          const row = db
            .prepare('SELECT text FROM file_texts WHERE path = ?')
            .get(`${repo}/${rel}`) as { text: string } | undefined;
          assert.equal(
            row?.text,
            readFileSync(path.join(roots[repo]!, rel), 'utf8'),
            `${repo}/${rel}`,
          );
        }
      }
    } finally {
      db.close();
    }
    assert.ok(seconds < 240, `the soak took ${seconds.toFixed(1)} s`);
  });
});
