import path from 'node:path';
import { checkRepositoryName, errorMessage } from '@codesift/core';
import { createEmbedderFromEnv } from '@codesift/models';
import {
  defaultIndexPath,
  describeHolder,
  type IndexSummary,
  indexRepository,
  isSecretPolicy,
  SECRET_POLICIES,
  type SecretPolicy,
} from '@codesift/pipeline';
import { checkIndexCommand } from '../check-index.js';
import { HELP_OPTION, type OptionSpecs, optionHelp, parseCommandLine } from '../command-line.js';
import { llmForIndex } from '../context-mode.js';
import { resolveIndexPath } from '../engine-from-args.js';
import { existingDirectory } from '../existing-directory.js';
import { existingIndexOf, indexFileFromOption, indexPathToWrite } from '../index-location.js';
import { type CliIO, EXIT, UsageError } from '../io.js';
import { formatCount, styleFor } from '../ui/format.js';
import {
  lineProgress,
  type ProgressView,
  silentProgress,
  ttyProgress,
} from '../ui/progress-view.js';

const OPTIONS = {
  index: {
    type: 'string',
    value: '<path>',
    help: 'index directory or .db file (default <dir>/.codesift, or the user cache when <dir> is read-only)',
  },
  json: { type: 'boolean', help: 'print one JSON summary object on stdout' },
  'no-vectors': { type: 'boolean', help: 'keyword index only (no embedding model)' },
  'no-history': {
    type: 'boolean',
    help: "do not store the repository's recent commits (messages and changed files; searches use them as a file prior)",
  },
  context: {
    type: 'string',
    value: '<mode>',
    help: 'chunk context sentences: pattern (default, rule-based) or llm (asks the chat model, see "LLM contexts" below)',
  },
  rebuild: {
    type: 'boolean',
    help: 'discard the existing index and index everything (LLM contexts cached in contexts.db are kept)',
  },
  check: {
    type: 'boolean',
    help: 'check the index instead of indexing: every page (SQLite integrity_check), the keyword index and the vector tables; exit 1 with the problems when damaged',
  },
  'no-wait': {
    type: 'boolean',
    help: 'when another indexer is writing this index, exit 1 at once instead of waiting for it',
  },
  'drop-context-cache': {
    type: 'boolean',
    help: 'with --context llm: delete the cached LLM contexts (contexts.db beside the index) first, so every chunk is asked again',
  },
  'max-file-bytes': {
    type: 'string',
    value: '<n>',
    help: 'skip files larger than this (default 1048576)',
  },
  ignore: {
    type: 'string',
    multiple: true,
    value: '<pattern>',
    help: 'extra gitignore-style pattern (repeatable)',
  },
  secrets: {
    type: 'string',
    value: '<policy>',
    help: 'a file whose content holds a secret: redact (default) stores it with each secret replaced by [REDACTED:<rule>], skip leaves the file out; overrides "secrets" in .codesift/config.json',
  },
  quiet: { type: 'boolean', short: 'q', default: false, help: 'no progress output' },
  remote: {
    type: 'string',
    value: '<nats-url>',
    help: 'index through a cluster (npm run cluster) instead of in this process; see "Cluster mode" below',
  },
  repository: {
    type: 'string',
    value: '<name>',
    help: 'with --remote: the repository this directory is, in a cluster index of many (e.g. acme/api)',
  },
  remove: {
    type: 'boolean',
    help: "with --remote and --repository, and no <dir>: remove that repository's files from the cluster index",
  },
  ...HELP_OPTION,
} as const satisfies OptionSpecs;

export const help = `Usage: codesift index [options] <dir>
       codesift index --check [--index <path>] [<dir>]
       codesift index --remote <nats-url> --repository <name> --remove

Indexes a directory into a local index (default <dir>/.codesift/). A second
run only re-processes files that changed, and removes deleted ones.
When <dir> is read-only to you, the index goes to the user cache instead
($CODESIFT_CACHE_DIR, else $XDG_CACHE_HOME/codesift or ~/.cache/codesift on
Linux, ~/Library/Caches/codesift on macOS, %LOCALAPPDATA%\\codesift\\Cache on
Windows), under indexes/<name>-<hash of its real path>/; search, serve, mcp
and watch find it there.
--rebuild writes a new index file beside the old one and swaps it in when
complete: until then (and if the run is killed) searches read the old index.
One indexer writes an index at a time (index.db.lock names its pid and host;
a lock whose process is gone is taken over): a second one, and the watch of
codesift watch, serve and mcp, waits for it; with --no-wait it exits 1.

Options:
${optionHelp(OPTIONS)}

Cluster mode (--remote nats://127.0.0.1:4222):
  The directory is scanned here and sent over NATS; the cluster's stages
  chunk, embed and write it. Only changed files are sent: the plan comes
  from the writer's manifest over NATS, so the cluster's index need not be on
  this machine (--index, if given, is only left out of the scan). The
  cluster's embedder decides about vectors (--no-vectors does not apply). The
  --json summary has the same fields ("indexPath" says where the writer's
  index lives); "vectors" counts the chunks written when the index has an
  embedder, and the progress counts files as the cluster reports them done.
  A server with credentials takes them from NATS_USER and NATS_PASSWORD (or
  NATS_TOKEN), as the cluster's services do.

  One cluster index can hold many repositories: with --repository <name>
  the files are stored under <name>/ (search them with --path '<name>/**'),
  and the job updates and deletes within that repository only. An index
  holds either repositories or one unnamed tree, not both. A repository whose
  files are all gone (--remove) is forgotten.

LLM contexts (--context llm, or "context": "llm" in .codesift/config.json):
  Each chunk gets one or two sentences from the chat model situating it in its
  file (the pattern context when a call fails or the answer is unusable).
  Answers are cached by chunk content in contexts.db beside the index, so a
  re-index asks only for changed chunks. The --json "context" object counts
  chunks by source and fallback reason.

Environment:
  OLLAMA_HOST             Ollama server: embeddings instead of the built-in
                          model, and the chat model of --context llm
  CODESIFT_LLM_MODEL      chat model for --context llm (e.g. qwen3:0.6b)
  CODESIFT_LLM_TIMEOUT_MS, CODESIFT_LLM_CONCURRENCY  per-call limit (default
                          15000) and calls in flight (default 4)
  CODESIFT_EMBED_MODEL    Ollama embedding model (default nomic-embed-text)
  CODESIFT_INDEX          with --remote: a cluster index file to leave out of the scan
  CODESIFT_STALL_NOTICE_MS  with --remote: warn after this long without progress
                          from the cluster (default 60000, then twice as long)
`;

function progressView(quiet: boolean, io: CliIO): ProgressView {
  if (quiet) return silentProgress();
  return io.stderr.isTTY ? ttyProgress(io.stderr as NodeJS.WriteStream) : lineProgress(io.stderr);
}

/** CODESIFT_STALL_NOTICE_MS: a positive number of ms, else the default. */
function stallNotice(value: string | undefined): { stallNoticeMs?: number } {
  const ms = Number(value);
  return value !== undefined && Number.isFinite(ms) && ms > 0 ? { stallNoticeMs: ms } : {};
}

/** --secrets's value; undefined leaves the choice to the tree's config file. */
function secretsOption(value: string | undefined): SecretPolicy | undefined {
  if (value === undefined) return undefined;
  if (!isSecretPolicy(value)) {
    throw new UsageError(`--secrets must be ${SECRET_POLICIES.join(' or ')}, got "${value}"`);
  }
  return value;
}

/** --repository's value, checked here: a bad name is a usage error, not a failed job. */
function repositoryOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return checkRepositoryName(value.trim());
  } catch (err) {
    throw new UsageError(
      `--repository: ${errorMessage(err)} (letters, digits, ".", "_", "-", segments joined by "/")`,
    );
  }
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  if (values.remove) {
    if (values.remote === undefined || values.repository === undefined) {
      throw new UsageError(
        '--remove needs --remote <nats-url> and --repository <name>: it removes a repository from a cluster index',
      );
    }
    if (positionals.length > 0) {
      throw new UsageError('--remove takes no <dir>: it removes the repository the index holds');
    }
    return removeRepository(values.remote, repositoryOption(values.repository)!, values, io);
  }
  if (values.check) {
    if (values.remote !== undefined) {
      throw new UsageError('--check reads a local index: it does not apply with --remote');
    }
    if (positionals.length > 1) throw new UsageError('--check takes at most one <dir>');
    const dir = positionals[0];
    const indexPath =
      values.index !== undefined || dir === undefined
        ? resolveIndexPath(values.index, io)
        : indexOfDir(path.resolve(io.cwd, dir), io.env);
    return checkIndexCommand(indexPath, values.json, io);
  }
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0 ? 'missing <dir> to index' : 'index takes exactly one <dir>',
    );
  }
  const root = existingDirectory(
    path.resolve(io.cwd, positionals[0]!),
    'codesift index takes the root of a source tree (a directory)',
  );
  let maxFileBytes: number | undefined;
  if (values['max-file-bytes'] !== undefined) {
    maxFileBytes = Number(values['max-file-bytes']);
    if (!Number.isInteger(maxFileBytes) || maxFileBytes <= 0) {
      throw new UsageError(
        `--max-file-bytes must be a positive integer, got ${values['max-file-bytes']}`,
      );
    }
  }
  const secrets = secretsOption(values.secrets);
  const view = progressView(values.quiet, io);
  if (values.repository !== undefined && values.remote === undefined) {
    throw new UsageError('--repository applies with --remote only: a local index holds one tree');
  }
  if (values.remote !== undefined) {
    if (values.context !== undefined) {
      throw new UsageError('--context does not apply with --remote: the cluster contextualizes');
    }
    const repository = repositoryOption(values.repository);
    const natsUrl = values.remote.trim();
    if (natsUrl === '') throw new UsageError('--remote needs the NATS URL of the cluster');
    if (values['no-vectors']) {
      throw new UsageError(
        '--no-vectors does not apply with --remote: the cluster decides (npm run cluster -- --embedder none)',
      );
    }
    // Optional: named only to keep a cluster index inside the tree out of the scan.
    const clusterIndex = values.index ?? (io.env.CODESIFT_INDEX?.trim() || undefined);
    // Loaded only here: local indexing never pays for the NATS client.
    const { indexRemote } = await import('../remote/remote-index.js');
    let summary: IndexSummary;
    try {
      summary = await indexRemote({
        natsUrl,
        root,
        ...(clusterIndex ? { indexPath: indexFileFromOption(clusterIndex, io.cwd) } : {}),
        rebuild: values.rebuild,
        ...(repository === undefined ? {} : { repository }),
        maxFileBytes,
        extraIgnore: values.ignore,
        ...(secrets === undefined ? {} : { secrets }),
        view,
        ...stallNotice(io.env.CODESIFT_STALL_NOTICE_MS),
      });
    } finally {
      view.done();
    }
    return report(summary, values.json, io);
  }
  const indexPath = values.index
    ? indexFileFromOption(values.index, io.cwd)
    : indexPathToWrite(root, values.quiet, io);
  const vectors = !values['no-vectors'];
  const llm = llmForIndex(values.context, root, io.env);

  const embedder = vectors ? await createEmbedderFromEnv(io.env) : undefined;
  let summary: IndexSummary;
  try {
    summary = await indexRepository({
      root,
      indexPath,
      vectors,
      embedder,
      rebuild: values.rebuild,
      dropContextCache: values['drop-context-cache'],
      maxFileBytes,
      extraIgnore: values.ignore,
      ...(secrets === undefined ? {} : { secrets }),
      llm,
      noWait: values['no-wait'],
      ...(values['no-history'] ? { history: false } : {}),
      onLockWait: (holder, lockFile) =>
        io.stderr.write(
          `waiting: index ${indexPath} is being written by ${describeHolder(holder)} (${lockFile})\n`,
        ),
      onProgress: (p) => view.update(p),
    });
  } finally {
    view.done();
    await embedder?.close();
  }
  return report(summary, values.json, io);
}

/** --check's index of `dir`: the one that exists, else the in-tree path the error names. */
function indexOfDir(dir: string, env: NodeJS.ProcessEnv): string {
  return existingIndexOf(dir, env) ?? defaultIndexPath(dir);
}

/** `--remove`: every file of the repository deleted through the cluster, then it is forgotten. */
async function removeRepository(
  remote: string,
  repository: string,
  values: { json: boolean; quiet: boolean },
  io: CliIO,
): Promise<number> {
  const natsUrl = remote.trim();
  if (natsUrl === '') throw new UsageError('--remote needs the NATS URL of the cluster');
  const view = progressView(values.quiet, io);
  const { indexRemote } = await import('../remote/remote-index.js');
  let summary: IndexSummary;
  try {
    summary = await indexRemote({
      natsUrl,
      root: io.cwd,
      repository,
      remove: true,
      rebuild: false,
      view,
      ...stallNotice(io.env.CODESIFT_STALL_NOTICE_MS),
    });
  } finally {
    view.done();
  }
  return report(summary, values.json, io, repository);
}

function report(summary: IndexSummary, json: boolean, io: CliIO, removed?: string): number {
  if (json) {
    io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    printSummary(summary, io, removed);
  }
  return EXIT.ok;
}

function printSummary(s: IndexSummary, io: CliIO, removed?: string): void {
  const st = styleFor(io.stdout, io.env);
  const skipped = Object.entries(s.skipped)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([reason, n]) => `${reason} ${formatCount(n ?? 0)}`)
    .join(', ');
  const redacted = Object.entries(s.secretsRedacted)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([rule, n]) => `${rule} ${formatCount(n)}`)
    .join(', ');
  const lines = [
    removed === undefined
      ? `${st.green('✔')} indexed ${st.bold(path.relative(process.cwd(), s.root) || '.')} in ${s.seconds.toFixed(1)}s`
      : `${st.green('✔')} removed repository ${st.bold(removed)}: ${formatCount(s.filesDeleted)} files deleted in ${s.seconds.toFixed(1)}s`,
    `  files   ${formatCount(s.filesScanned)} scanned: ${formatCount(s.filesNew)} new, ${formatCount(s.filesChanged)} changed, ${formatCount(s.filesUnchanged)} unchanged, ${formatCount(s.filesDeleted)} deleted${s.filesFailed ? `, ${st.yellow(`${formatCount(s.filesFailed)} failed`)}` : ''}`,
    `  skipped ${skipped || 'none'}`,
    // Line windows where AST chunks were expected are said, never silent.
    ...Object.entries(s.noAst ?? {}).map(([language, n]) =>
      st.yellow(
        `  no AST  ${language}: ${formatCount(n.files)} files got line windows, no symbols (${n.reason})`,
      ),
    ),
    // So are chunks and symbols that come from keywords and braces, not a syntax tree.
    ...Object.entries(s.structural ?? {}).map(
      ([language, n]) => `  braces  ${language}: ${formatCount(n.files)} files ${n.reason}`,
    ),
    ...(redacted ? [`  secrets ${redacted} redacted`] : []),
    `  written ${formatCount(s.chunks)} chunks, ${formatCount(s.symbols)} symbols, ${formatCount(s.vectors)} vectors (${formatCount(s.chunksPerSecond)} chunks/s)`,
    `  index   ${formatCount(s.totals.files)} files, ${formatCount(s.totals.chunks)} chunks in ${s.indexPath}`,
    `  model   ${s.embedder ?? 'none (keyword only)'}`,
    ...(s.historyCommits === undefined
      ? []
      : [`  history ${formatCount(s.historyCommits)} commits (git log, newest first)`]),
  ];
  for (const f of s.failures.slice(0, 10))
    lines.push(st.yellow(`  warning: ${f.path}: ${f.reason}`));
  if (s.failures.length > 10)
    lines.push(st.yellow(`  ... and ${s.failures.length - 10} more failures (see --json)`));
  io.stdout.write(`${lines.join('\n')}\n`);
}
