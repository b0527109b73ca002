import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CodesiftError } from '@codesift/core';
import {
  type EvalQuery,
  type EvalTarget,
  formatReport,
  GitDirs,
  orderForSeeding,
  type QueryField,
  readQuerySet,
  runEval,
} from '@codesift/eval';
import { createEmbedderFromEnv, type Embedder } from '@codesift/models';
import { defaultIndexPath, type IndexProgress } from '@codesift/pipeline';
import { type FusionMethod, openLocalEngine } from '@codesift/search';
import { indexFileFromOption } from '../index-location.js';
import { type CliIO, EXIT, UsageError } from '../io.js';
import {
  lineProgress,
  type ProgressView,
  silentProgress,
  ttyProgress,
} from '../ui/progress-view.js';

export const help = `Usage: codesift eval --set <file.jsonl> --repo <dir> [options]
       codesift eval --set <file.jsonl> --checkouts <dir> (--mirrors <dir> | --git-dir <owner/name>=<path>...) [options]

Measures retrieval quality on a query set with known answers: each query is
searched with codesift and with a plain BM25 baseline over whole files (same
files, generic tokenizer), and both are scored side by side at file level:
Acc@1/5/10, Recall@5/10, MRR@10, nDCG@10 and latency, overall, per query
class and per repository.

Query set: JSON Lines, one query per line, either
  {"id", "query", "relevant_files": [...], "class"?, "grades"?: {path: grade}}
or the SWE-bench form {"id", "repo", "commit", "query", "query_title", "relevant_files", ...}.

Where the answers are searched:
  --repo <dir>              every query over this tree (indexed incrementally
                            into <dir>/.codesift, or --index)
  --index <path>            index directory or .db file for --repo
  --ignore <pattern>        gitignore-style pattern left out of both systems'
                            corpus with --repo (repeatable); the set file itself
                            is always left out when it lies inside the tree
  --checkouts <dir>         cache for per-commit checkouts (git archive) and
                            their indexes, reused across runs; for sets whose
                            lines name repo and commit
  --git-dir <o/n>=<path>    git directory (bare or not) of repository o/n (repeatable)
  --mirrors <dir>           directory of git mirrors laid out as <owner>+<name>/repo

Options:
  --set <file>              the query set (required)
  --query-field <field>     query or query_title (default query)
  --limit-queries <n>       only the first n queries of the set
  --no-vectors              keyword-only engine (no embedding model)
  --fusion <method>         rrf or linear (default: the engine's)
  --no-baseline             skip the BM25 baseline
  --json                    print the full report as JSON (with per-query ranks)
  -q, --quiet               no progress on stderr
  -h, --help                show this help

Exit status: 0 when the evaluation ran (whatever the scores), 1 when it could
not run, 2 for a wrong command line.
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    allowPositionals: false,
    strict: true,
    options: {
      set: { type: 'string' },
      repo: { type: 'string' },
      index: { type: 'string' },
      ignore: { type: 'string', multiple: true },
      checkouts: { type: 'string' },
      'git-dir': { type: 'string', multiple: true },
      mirrors: { type: 'string' },
      'query-field': { type: 'string' },
      'limit-queries': { type: 'string' },
      'no-vectors': { type: 'boolean', default: false },
      fusion: { type: 'string' },
      'no-baseline': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', short: 'q', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  if (!values.set) throw new UsageError('missing --set <file.jsonl>');
  if ((values.repo === undefined) === (values.checkouts === undefined)) {
    throw new UsageError('give exactly one of --repo <dir> or --checkouts <dir>');
  }
  if ((values.index !== undefined || values.ignore) && values.repo === undefined) {
    throw new UsageError('--index and --ignore go with --repo');
  }
  if (values.repo !== undefined && (values['git-dir'] || values.mirrors)) {
    throw new UsageError('--git-dir and --mirrors go with --checkouts');
  }
  const queryField = (values['query-field'] ?? 'query') as QueryField;
  if (queryField !== 'query' && queryField !== 'query_title') {
    throw new UsageError(`--query-field must be query or query_title, got ${queryField}`);
  }
  const fusion = values.fusion as FusionMethod | undefined;
  if (fusion !== undefined && fusion !== 'rrf' && fusion !== 'linear') {
    throw new UsageError(`--fusion must be rrf or linear, got ${fusion}`);
  }
  let limit: number | undefined;
  if (values['limit-queries'] !== undefined) {
    limit = Number(values['limit-queries']);
    if (!Number.isInteger(limit) || limit <= 0) {
      throw new UsageError(
        `--limit-queries must be a positive integer, got ${values['limit-queries']}`,
      );
    }
  }

  const setPath = path.resolve(io.cwd, values.set);
  let queries: EvalQuery[] = readQuerySet(setPath);
  if (limit !== undefined) queries = queries.slice(0, limit);

  let target: EvalTarget;
  if (values.repo !== undefined) {
    const root = path.resolve(io.cwd, values.repo);
    if (!existsSync(root) || !statSync(root).isDirectory()) {
      throw new CodesiftError('ENOENT_ROOT', `--repo ${root} is not a directory`);
    }
    const indexPath = values.index
      ? indexFileFromOption(values.index, io.cwd)
      : defaultIndexPath(root);
    // A set inside the tree holds every query verbatim: indexing it would answer itself.
    const ignore = [...(values.ignore ?? [])];
    const setRel = path.relative(root, setPath);
    if (!setRel.startsWith('..') && !path.isAbsolute(setRel)) {
      ignore.push(`/${setRel.split(path.sep).join('/')}`);
    }
    target = { kind: 'repo', root, indexPath, ignore };
  } else {
    if (!values['git-dir'] && !values.mirrors) {
      throw new UsageError('--checkouts needs --mirrors <dir> or --git-dir <owner/name>=<path>');
    }
    const gitDirs = GitDirs.fromArgs(
      (values['git-dir'] ?? []).map((pair) => resolvePair(pair, io.cwd)),
      values.mirrors === undefined ? undefined : path.resolve(io.cwd, values.mirrors),
    );
    // Nearby commits of one repository run one after another, so each index is
    // seeded from the previous one and only the files that differ are re-indexed.
    queries = orderForSeeding(queries, gitDirs);
    target = { kind: 'checkouts', cacheDir: path.resolve(io.cwd, values.checkouts!), gitDirs };
  }

  const log = values.quiet ? () => {} : (line: string) => io.stderr.write(`${line}\n`);
  const vectors = !values['no-vectors'];
  let embedder: Embedder | undefined;
  if (vectors) {
    log('loading the embedding model');
    embedder = await createEmbedderFromEnv(io.env);
  }
  let view: ProgressView = silentProgress();
  const onIndexProgress = (p: IndexProgress) => {
    if (values.quiet) return;
    if (p.phase === 'open') {
      view.done();
      // A fresh view per index: the line view prints each phase once per index.
      view = io.stderr.isTTY
        ? ttyProgress(io.stderr as NodeJS.WriteStream)
        : lineProgress(io.stderr);
    }
    // Only the indexing phase is worth a line per checkout in a log.
    if (io.stderr.isTTY || (p.phase === 'index' && p.filesToProcess > 0)) view.update(p);
    if (p.phase === 'done') view.done();
  };
  log(`evaluating ${queries.length} queries from ${path.relative(io.cwd, setPath) || setPath}`);
  try {
    const report = await runEval({
      queries,
      queryField,
      target,
      embedder,
      openEngine: (indexPath) =>
        openLocalEngine({ indexPath, embedder: embedder ?? null, env: io.env, fusion }),
      fusion,
      baseline: !values['no-baseline'],
      setPath: path.relative(io.cwd, setPath) || setPath,
      log,
      onIndexProgress,
    });
    io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  } finally {
    view.done();
    await embedder?.close();
  }
  return EXIT.ok;
}

/** `owner/name=relative/path` is relative to the working directory. */
function resolvePair(pair: string, cwd: string): string {
  const eq = pair.indexOf('=');
  if (eq <= 0) return pair;
  return `${pair.slice(0, eq)}=${path.resolve(cwd, pair.slice(eq + 1))}`;
}
