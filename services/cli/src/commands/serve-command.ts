import path from 'node:path';
import {
  CodesiftError,
  checkScanRoot,
  errorMessage,
  parseScanRoots,
  resolveServerAuth,
  SCAN_ROOTS_ENV,
  weakTokenWarning,
} from '@codesift/core';
import { defaultSearchThreads, openLocalEnginePool } from '@codesift/engine-pool';
import { createGrpcServer, quietGrpcLogs, waitForStopSignal } from '@codesift/grpc';
import { createEmbedderFromEnv } from '@codesift/models';
import {
  createLocalIndexJobs,
  type IndexJobStatus,
  type IndexJobs,
  type IndexWatcher,
} from '@codesift/pipeline';
import { type SearchEngine, swappableEngine } from '@codesift/search';
import { startTelemetry } from '@codesift/telemetry';
import { HELP_OPTION, type OptionSpecs, optionHelp, parseCommandLine } from '../command-line.js';
import { resolveIndexPath } from '../engine-from-args.js';
import { followIndexFile } from '../follow-index-file.js';
import { type CliIO, EXIT, UsageError } from '../io.js';
import { WATCH_KEEP_EMBEDDER_MS, watchForServer } from '../server-watch.js';

const OPTIONS = {
  index: {
    type: 'string',
    value: '<path>',
    help: 'index directory or .db file (default: the nearest .codesift/index.db in this directory or its parents, or their index in the user cache)',
  },
  host: {
    type: 'string',
    default: '127.0.0.1',
    value: '<host>',
    help: 'address to listen on (default 127.0.0.1)',
  },
  port: {
    type: 'string',
    default: '50051',
    value: '<n>',
    help: 'port (default 50051; 0 picks a free port)',
  },
  token: {
    type: 'string',
    value: '<token>',
    help: "require 'authorization: Bearer <token>' on every call except health checks (default: $CODESIFT_TOKEN); required unless --insecure-no-auth",
  },
  'insecure-no-auth': {
    type: 'boolean',
    help: 'serve without a token; loopback hosts only',
  },
  'scan-root': {
    type: 'string',
    multiple: true,
    value: '<dir>',
    help: 'StartIndex may only name directories under this one, symlinks and .. resolved (repeatable; default: $CODESIFT_SCAN_ROOTS, else the indexed directory)',
  },
  'keyword-only': {
    type: 'boolean',
    help: 'answer without the embedding model (BM25 only)',
  },
  'read-only': {
    type: 'boolean',
    help: 'refuse StartIndex and do not watch (no indexing by the server)',
  },
  'no-watch': {
    type: 'boolean',
    help: 'do not watch the indexed directory: by default files saved, added, deleted or renamed there are re-indexed within about a second',
  },
  threads: {
    type: 'string',
    value: '<n>',
    help: 'search worker threads, each with its own engine (default: one per CPU core, at most 4; 0 runs searches on the main thread)',
  },
  json: {
    type: 'boolean',
    help: 'print one JSON line with the address on stdout',
  },
  ...HELP_OPTION,
} as const satisfies OptionSpecs;

export const help = `Usage: codesift serve [options]

Serves the local index over gRPC until SIGINT or SIGTERM:
codesift.v1.SearchService, SymbolService, IndexService (start a re-index of
the indexed directory, watch its progress) and grpc.health.v1.Health.
Unless --no-watch or --read-only is given, it keeps the index fresh: changes
under the indexed directory are re-indexed as they are saved (keyword-only
indexes stay keyword-only), and results from a file changed since it was
indexed are marked stale.

Every call but health checks needs 'authorization: Bearer <token>' (--token
or CODESIFT_TOKEN); the server refuses to start without a token unless
--insecure-no-auth is given and --host is a loopback address. StartIndex only
re-indexes the indexed directory, and only when it lies under a scan root
(PERMISSION_DENIED otherwise, before anything is touched).

Options:
${optionHelp(OPTIONS)}

On shutdown health turns NOT_SERVING and calls in flight get 5 s to finish.

Environment:
  CODESIFT_TOKEN          token when --token is not given
  CODESIFT_SCAN_ROOTS     scan roots when --scan-root is not given (${path.delimiter}-separated)
  OLLAMA_HOST             Ollama server, for an index embedded with Ollama
  OTEL_EXPORTER_OTLP_ENDPOINT  export traces (and metrics) over OTLP, e.g. http://jaeger:4318;
                          OTEL_TRACES_EXPORTER=console prints spans on stderr instead
  CODESIFT_METRICS_PORT   serve Prometheus metrics at http://CODESIFT_METRICS_HOST:<port>/metrics
                          (host default 127.0.0.1)
`;

const GRACE_MS = 5000;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port must be an integer from 0 to 65535, got ${values.port}`);
  }
  const host = values.host;
  if (host.trim() === '') throw new UsageError('--host must not be empty');
  const threads = parseThreads(values.threads);
  // Checked before the index opens, so a missing token fails fast. An empty
  // CODESIFT_TOKEN counts as none.
  const token =
    resolveServerAuth({
      token: values.token ?? io.env.CODESIFT_TOKEN,
      insecureNoAuth: values['insecure-no-auth'],
      host,
      server: 'codesift serve',
    }) ?? undefined;
  const weak = weakTokenWarning(token ?? null);
  if (weak) io.stderr.write(`${weak}\n`);
  if (token === undefined) {
    io.stderr.write('warning: serving without authentication (--insecure-no-auth)\n');
  }
  quietGrpcLogs(io.env);

  const indexPath = resolveIndexPath(values.index, io);
  const engineOptions = {
    indexPath,
    env: { ...io.env },
    // A server: the model loads at start, not on the first query, and long
    // reports' embedding overlaps their keyword side.
    preloadModel: true,
    longTextWorker: true,
    ...(values['keyword-only'] ? { embedder: null } : {}),
  };
  // Before the engine: its search threads join the traces only if the SDK
  // runs when they start. Off (a no-op) unless OTEL_*/CODESIFT_METRICS_PORT say so.
  const telemetry = await startTelemetry({ serviceName: 'codesift-serve', env: io.env });
  const open = (): Promise<SearchEngine> => openLocalEnginePool(engineOptions, threads);
  const first = await open().catch(async (err: unknown) => {
    await telemetry.shutdown();
    throw err;
  });
  const engines = reopenable(first, open, (err) =>
    io.stderr.write(`warning: could not reopen the index after indexing: ${errorMessage(err)}\n`),
  );
  let jobs: IndexJobs | undefined;
  let watcher: IndexWatcher | undefined;
  let startWatch: (() => Promise<void>) | undefined;
  const { root, embedder: servedEmbedder } = await engines.engine.status();
  const watching = !values['no-watch'] && !values['read-only'];
  const scanRoots = serveScanRoots(values['scan-root'], io, root);
  if (root && scanRoots && !values['read-only']) {
    // A server whose own directory is off limits could watch it but never be asked to index it.
    try {
      checkScanRoot(root, scanRoots);
    } catch (err) {
      await engines.engine.close();
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `the indexed directory ${root} is outside the scan roots (${scanRoots.join(', ')})`,
        { hint: 'add a --scan-root that contains it, or pass --read-only', cause: err },
      );
    }
  }
  // Jobs only ever re-index the directory this index was built from.
  if (root && !values['read-only']) {
    let embedder = servedEmbedder;
    const indexJobs = createLocalIndexJobs({
      root,
      indexPath,
      embedderFactory: () => createEmbedderFromEnv(io.env),
      ...(watching ? { keepEmbedderMs: WATCH_KEEP_EMBEDDER_MS } : {}),
      // A rebuild writes a new file and a job may add vectors: searches must
      // see the new index. Open engines see an incremental job's commits.
      onFinished: (s) => {
        if (s.state !== 'succeeded') return;
        const written = s.summary?.embedder ?? null;
        if (!s.rebuild && written === embedder) return;
        embedder = written;
        void engines.reopen();
      },
    });
    jobs = indexJobs;
    if (watching) {
      startWatch = async () => {
        watcher = await watchForServer({
          root,
          indexPath,
          log: (line) => io.stderr.write(`codesift serve: ${line}\n`),
          warm: () => indexJobs.warm(),
          // A keyword-only index stays keyword-only: no model loads for a saved file.
          run: (files) =>
            runJob(indexJobs, { vectors: embedder !== null, ...(files ? { paths: files } : {}) }),
        });
      };
    }
  }
  const server = createGrpcServer({
    engine: engines.engine,
    jobs,
    token,
    ...(root && scanRoots ? { indexRoots: { scanRoots, defaultRoot: root } } : {}),
  });
  // A rebuild by another process (codesift index --rebuild) is a new file under the same path.
  const stopFollowing = followIndexFile(indexPath, () => void engines.reopen());
  const closeAll = async () => {
    stopFollowing();
    await server.shutdown({ graceMs: GRACE_MS });
    const watchStopped = watcher?.close();
    await jobs?.close();
    await watchStopped;
    await engines.engine.close();
    await telemetry.shutdown();
  };
  let address: string;
  let boundPort: number;
  try {
    ({ address, port: boundPort } = await server.listen(host, port));
  } catch (err) {
    await closeAll();
    throw err;
  }

  const stopped = waitForStopSignal();
  io.stderr.write(
    `codesift gRPC server listening on ${address} (index: ${indexPath}${token ? ', token required' : ''})\n`,
  );
  if (values.json) {
    io.stdout.write(
      `${JSON.stringify({ event: 'listening', address, host, port: boundPort, indexPath, root, auth: token !== undefined })}\n`,
    );
  }
  // After listening: walking a large tree must not hold up the first searches.
  const watchStarted = startWatch?.().catch((err) =>
    io.stderr.write(`warning: not watching ${root} for changes: ${errorMessage(err)}\n`),
  );
  const signal = await stopped;
  io.stderr.write(`codesift gRPC server shutting down (${signal})\n`);
  await watchStarted;
  await closeAll();
  io.stderr.write('codesift gRPC server stopped\n');
  return EXIT.ok;
}

/** --scan-root, else CODESIFT_SCAN_ROOTS, else the indexed directory; undefined without one. */
function serveScanRoots(
  flags: string[] | undefined,
  io: CliIO,
  root: string | null,
): string[] | undefined {
  const fromFlags = (flags ?? []).map((d) => path.resolve(io.cwd, d));
  if (fromFlags.length > 0) return fromFlags;
  const fromEnv = parseScanRoots(io.env[SCAN_ROOTS_ENV], io.cwd);
  if (fromEnv.length > 0) return fromEnv;
  return root ? [root] : undefined;
}

/** Starts a job and resolves with its final status; a failed job rejects. */
async function runJob(
  jobs: IndexJobs,
  request: { vectors: boolean; paths?: string[] },
): Promise<IndexJobStatus> {
  const job = await jobs.start(request);
  let last = job;
  for await (const s of jobs.watch(job.jobId)) last = s;
  if (last.state !== 'succeeded') throw new Error(last.error ?? 'the index job failed');
  return last;
}

/**
 * One search is mostly synchronous CPU, so a server on one thread uses one
 * core however many clients wait; worker threads use them all (measured in
 * docs/BENCHMARKS.md, gRPC server).
 */
function parseThreads(raw: string | undefined): number {
  if (raw === undefined) return defaultSearchThreads();
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 64) {
    throw new UsageError(`--threads must be an integer from 0 to 64, got ${raw}`);
  }
  return n;
}

/** The engine, and a reopen that swaps in a freshly opened one (see swappableEngine). */
function reopenable(
  first: SearchEngine,
  open: () => Promise<SearchEngine>,
  onError: (err: unknown) => void,
): { engine: SearchEngine; reopen: () => Promise<void> } {
  const slot = swappableEngine(first, onError);
  return {
    engine: slot.engine,
    async reopen() {
      try {
        await slot.swap(await open());
      } catch (err) {
        onError(err);
      }
    },
  };
}
