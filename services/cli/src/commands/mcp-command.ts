import { CodesiftError, errorMessage, resolveServerAuth, weakTokenWarning } from '@codesift/core';
import { connectRemoteEngine } from '@codesift/grpc';
import {
  checkRepositoryNames,
  type LocalWorkspace,
  MCP_PATH,
  type McpServerOptions,
  serveHttp,
  serveStdio,
} from '@codesift/mcp-bridge';
import type { SearchEngine } from '@codesift/search';
import { startTelemetry } from '@codesift/telemetry';
import { HELP_OPTION, type OptionSpecs, optionHelp, parseCommandLine } from '../command-line.js';
import { followIndexFile } from '../follow-index-file.js';
import { type CliIO, EXIT, UsageError } from '../io.js';
import {
  openMcpWorkspace,
  parseRootOption,
  repositoryNameOf,
  resolveServedIndex,
} from '../mcp-workspace.js';
import { untilStopSignal } from '../until-signal.js';

export const DEFAULT_HTTP_PORT = 7400;

const OPTIONS = {
  index: {
    type: 'string',
    value: '<path>',
    help: 'index directory or .db file (default: <root>/.codesift with --root, else the nearest .codesift/ in this directory or its parents, else ./.codesift; the user cache instead of a read-only tree)',
  },
  root: {
    type: 'string',
    value: '<[name=]dir>',
    multiple: true,
    help: "directory index_codebase indexes (default: the root the index records, else the working directory); repeat it to serve several roots, each with its own <root>/.codesift index, watch and jobs, selected by the tools' repository argument (the directory's name, or name=)",
  },
  'auto-index': {
    type: 'boolean',
    help: 'index the root in the background on start (new and changed files only); the tools answer meanwhile',
  },
  remote: {
    type: 'string',
    value: '<host:port>',
    help: 'answer from the gRPC server at this address instead of a local index (not with --index or --keyword-only)',
  },
  'remote-token': {
    type: 'string',
    value: '<secret>',
    help: 'bearer token for the gRPC server (default: --token, then env CODESIFT_TOKEN); without --http, --token is this token',
  },
  'keyword-only': {
    type: 'boolean',
    help: 'skip the embedding model (faster start, keyword search)',
  },
  'no-watch': {
    type: 'boolean',
    help: 'do not watch the root: by default, once the index exists, files saved, added, deleted or renamed are re-indexed within about a second',
  },
  http: { type: 'boolean', help: 'serve streamable HTTP instead of stdio' },
  host: {
    type: 'string',
    value: '<addr>',
    help: 'address to bind with --http (default 127.0.0.1)',
  },
  port: {
    type: 'string',
    value: '<n>',
    help: `port with --http (default ${DEFAULT_HTTP_PORT}; 0 picks a free one)`,
  },
  token: {
    type: 'string',
    value: '<secret>',
    help: 'bearer token clients must send (default: env CODESIFT_TOKEN)',
  },
  'insecure-no-auth': {
    type: 'boolean',
    help: 'serve --http without a token; loopback hosts only',
  },
  json: {
    type: 'boolean',
    help: 'with --http, print {"url", "host", "port", ...} as one JSON line on stdout once listening (with several --root, "repositories": [{"name", "root", "index"}])',
  },
  ...HELP_OPTION,
} as const satisfies OptionSpecs;

export const help = `Usage: codesift mcp [options]

Serves a codebase to AI agents over the Model Context Protocol, with the tools
search_code, find_symbol, find_references, get_file_outline, get_snippet and
index_status, and for a local index index_codebase and clear_index. It starts
without an index: the search tools then say to call index_codebase (or pass
--auto-index). Once a local index exists it is kept fresh: files saved,
added, deleted or renamed under the root are re-indexed shortly after
(--no-watch turns that off), and search results from a file changed since
it was indexed are marked stale. By default it speaks MCP on stdin/stdout, for a client that
starts it as a subprocess; with --http it serves streamable HTTP (stateless,
POST ${MCP_PATH}) and requires a bearer token. With --remote it answers from a
codesift gRPC server (codesift serve, or the cluster's query service) instead
of opening an index here.

With several --root options every tool takes a repository argument naming
one root (required: a call without it is refused with the list of names),
and list_repositories lists them; with one root the tools are unchanged.

Options:
${optionHelp(OPTIONS)}

Environment:
  CODESIFT_TOKEN          bearer token for --http, and for --remote
  OLLAMA_HOST             query embeddings via Ollama, for indexes built with it

Logs go to stderr; in stdio mode stdout carries only MCP messages. Stops on
SIGINT or SIGTERM, and in stdio mode when stdin closes.
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  if (positionals.length > 0) {
    throw new UsageError(
      `unexpected argument '${positionals[0]}' (use --index <path> to pick the index)`,
    );
  }
  const remote = values.remote?.trim();
  if (remote !== undefined) {
    if (remote === '')
      throw new UsageError('--remote needs the gRPC address, e.g. 127.0.0.1:50051');
    if (values.index !== undefined) {
      throw new UsageError('--remote and --index are mutually exclusive: pick one index');
    }
    if (values['keyword-only']) {
      throw new UsageError(
        '--keyword-only does not apply with --remote: the server decides (codesift serve --keyword-only)',
      );
    }
    for (const local of ['root', 'auto-index', 'no-watch'] as const) {
      if (values[local] !== undefined && values[local] !== false) {
        throw new UsageError(
          `--${local} does not apply with --remote: the index is built elsewhere`,
        );
      }
    }
  } else if (values['remote-token'] !== undefined) {
    throw new UsageError('--remote-token only applies with --remote');
  }
  if (!values.http) {
    // Without --http, --token can only mean the gRPC server's token.
    const httpOnly = (['host', 'port', 'token', 'insecure-no-auth', 'json'] as const).filter(
      (k) =>
        values[k] !== undefined && values[k] !== false && !(k === 'token' && remote !== undefined),
    );
    if (httpOnly.length) {
      // In stdio mode stdout is the protocol channel: a stray JSON line or a
      // silently ignored --port would only confuse the client.
      throw new UsageError(`--${httpOnly[0]} needs --http`);
    }
  }

  const log = (line: string) => io.stderr.write(`codesift mcp: ${line}\n`);
  const rootOptions = (values.root ?? []).map((r) => parseRootOption(r, io.cwd));
  if (rootOptions.length > 1 && values.index !== undefined) {
    throw new UsageError(
      '--index applies to one root: with several --root options each root uses its own <root>/.codesift',
    );
  }
  // One entry even without --root: the index found from the working directory.
  const served =
    remote === undefined
      ? (rootOptions.length ? rootOptions : [undefined]).map((r) => {
          const where = resolveServedIndex(
            { ...(values.index ? { index: values.index } : {}), ...(r ? { root: r.dir } : {}) },
            io,
          );
          return { ...where, name: r?.name ?? repositoryNameOf(where.root) };
        })
      : undefined;
  if (served) checkRepositoryNames(served.map((s) => s.name));
  const indexPath = served?.map((s) => s.indexPath).join(', ') ?? `gRPC ${remote}`;
  // An empty token (CODESIFT_TOKEN=) means none, as for codesift serve.
  const remoteToken =
    (values['remote-token'] ?? values.token ?? io.env.CODESIFT_TOKEN) || undefined;
  const open = async (): Promise<Served> => {
    if (served === undefined) {
      // Checked at start, so a wrong address or token fails now, naming the address.
      const engine = await connectRemoteEngine(remote!, {
        ...(remoteToken ? { token: remoteToken } : {}),
        check: true,
      });
      return { engine, workspaces: [], options: {}, close: () => engine.close() };
    }
    const workspaces: LocalWorkspace[] = [];
    const closeAll = () => Promise.all(workspaces.map((w) => w.close())).then(() => {});
    try {
      for (const s of served) {
        const workspace = await openMcpWorkspace(
          { root: s.root, indexPath: s.indexPath },
          { keywordOnly: values['keyword-only'] ?? false, watch: !values['no-watch'], log },
          io,
        );
        workspaces.push(workspace);
        if (!workspace.hasIndex()) log(`${s.root} is not indexed yet (${s.indexPath})`);
      }
    } catch (err) {
      await closeAll();
      throw err;
    }
    // A rebuild by another process (codesift index --rebuild) is a new file under the same path.
    const stopFollowing = workspaces.map((workspace, i) =>
      followIndexFile(served[i]!.indexPath, () => void workspace.reopen()),
    );
    return {
      engine: workspaces[0]!.engine,
      workspaces,
      // One root keeps the tools exactly as a remote index has them: no repository argument.
      options:
        workspaces.length === 1
          ? { workspace: workspaces[0]! }
          : {
              repositories: workspaces.map((workspace, i) => ({
                name: served[i]!.name,
                engine: workspace.engine,
                workspace,
              })),
            },
      close: () => {
        for (const stop of stopFollowing) stop();
        return closeAll();
      },
    };
  };
  // A no-op unless OTEL_* or CODESIFT_METRICS_PORT ask for traces or metrics.
  const telemetry = await startTelemetry({ serviceName: 'codesift-mcp', env: io.env });

  if (!values.http) {
    const code = await serveStdioUntilDone(await open(), indexPath, log, values['auto-index']);
    await telemetry.shutdown();
    return code;
  }

  const host = values.host ?? '127.0.0.1';
  const port = parsePort(values.port);
  // Checked before the index opens, so a missing token fails fast.
  const token = resolveServerAuth({
    token: values.token ?? io.env.CODESIFT_TOKEN,
    insecureNoAuth: values['insecure-no-auth'],
    host,
    server: 'the HTTP transport',
  });
  const weak = weakTokenWarning(token);
  if (weak) log(weak);
  if (token === null) log('warning: serving without authentication (--insecure-no-auth)');

  const opened = await open();
  let server: Awaited<ReturnType<typeof serveHttp>>;
  try {
    server = await serveHttp(opened.engine, { host, port, token, log, server: opened.options });
  } catch (err) {
    await opened.close();
    const code = (err as { code?: string }).code;
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `cannot listen on ${host}:${port}: ${errorMessage(err)}`,
      {
        hint:
          code === 'EADDRINUSE'
            ? 'another process uses that port; pass --port <n>, or --port 0 for any free port'
            : 'check --host and --port',
      },
    );
  }
  log(
    `serving ${indexPath} at ${server.url} (${token === null ? 'no auth' : 'bearer token required'})`,
  );
  if (values.json) {
    io.stdout.write(
      `${JSON.stringify({
        transport: 'http',
        url: server.url,
        host: server.host,
        port: server.port,
        index: indexPath,
        auth: token !== null,
        // Several roots: which name selects which root and index.
        ...(served && served.length > 1
          ? {
              repositories: served.map((s) => ({ name: s.name, root: s.root, index: s.indexPath })),
            }
          : {}),
      })}\n`,
    );
  }
  if (values['auto-index']) for (const w of opened.workspaces) autoIndex(w, log);
  const signal = await untilStopSignal();
  log(`${signal}: shutting down`);
  await server.close();
  await opened.close();
  await telemetry.shutdown();
  return EXIT.ok;
}

/** What the tools answer from: a remote engine, or local indexes with their workspaces. */
interface Served {
  engine: SearchEngine;
  workspaces: LocalWorkspace[];
  options: McpServerOptions;
  close(): Promise<void>;
}

/**
 * --auto-index: a job started once the server is listening, so the
 * handshake never waits for it; its outcome goes to the log.
 */
function autoIndex(workspace: LocalWorkspace, log: (line: string) => void): void {
  const run = async () => {
    const { job } = await workspace.startIndex();
    log(`indexing ${workspace.root} in the background (--auto-index)`);
    const end = await workspace.follow(job.jobId);
    log(
      end.state === 'succeeded'
        ? `indexed ${workspace.root}: ${end.filesChanged} files new or changed, ${end.filesDeleted} deleted in ${end.elapsedSeconds.toFixed(1)}s`
        : `--auto-index failed: ${end.error ?? 'unknown error'}`,
    );
  };
  run().catch((err) => log(`--auto-index failed: ${errorMessage(err)}`));
}

async function serveStdioUntilDone(
  served: Served,
  indexPath: string,
  log: (line: string) => void,
  autoIndexing: boolean,
): Promise<number> {
  let session: Awaited<ReturnType<typeof serveStdio>>;
  try {
    session = await serveStdio(served.engine, { log, server: served.options });
  } catch (err) {
    await served.close();
    throw err;
  }
  log(`serving ${indexPath} on stdio`);
  if (autoIndexing) for (const w of served.workspaces) autoIndex(w, log);
  const stop = new AbortController();
  const signalled = untilStopSignal(stop.signal);
  const why = await Promise.race([session.closed.then(() => 'stdin closed'), signalled]);
  stop.abort();
  log(`${why}: shutting down`);
  await session.close();
  await served.close();
  // A client that sent a signal may still hold our stdin open; a readable
  // stdin would keep the process alive after main() returns.
  process.stdin.destroy();
  return EXIT.ok;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_HTTP_PORT;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(n) || n > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, not '${value}'`);
  }
  return n;
}
