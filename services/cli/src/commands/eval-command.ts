import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CodesiftError } from '@codesift/core';
import {
  type EvalQuery,
  type EvalSwitches,
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
import { type FusionMode, openLocalEngine } from '@codesift/search';
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
  --fusion <method>         rrf, linear or adaptive (default: the engine's)
  --vector-weight <w>       vector weight of linear fusion, 0..1 (default 0.7)

Feature switches (ablations; same semantics as codesift search):
  --no-planning             every planner feature off: no expansion, anchors,
                            definition boost, focus, rewrite; linear fusion;
                            files by their best chunk (a switch given
                            explicitly still applies, e.g. --fusion)
  --no-expansion            no synonyms or identifier variants
  --no-anchor               no boost for exact identifiers, codes, phrases
  --no-definitions          no boost for the chunk defining a named symbol
  --no-focus                no focus scoring (tests, docs and code alike)
  --no-report-focus         focus inference also reads pasted material
  --no-doc-demotion         prose docs not demoted for implementation questions
  --no-boilerplate          keep environment reports and template text in the query
  --file-score <mode>       best, decayed or auto: a file's score from its best
                            chunk, or best plus a decayed share of its next
                            chunks; auto: decayed for long (report) queries
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
      'vector-weight': { type: 'string' },
      'no-planning': { type: 'boolean', default: false },
      'no-expansion': { type: 'boolean', default: false },
      'no-anchor': { type: 'boolean', default: false },
      'no-definitions': { type: 'boolean', default: false },
      'no-focus': { type: 'boolean', default: false },
      'no-report-focus': { type: 'boolean', default: false },
      'no-doc-demotion': { type: 'boolean', default: false },
      'no-boilerplate': { type: 'boolean', default: false },
      'file-score': { type: 'string' },
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
  const fusion = values.fusion as FusionMode | undefined;
  if (fusion !== undefined && fusion !== 'rrf' && fusion !== 'linear' && fusion !== 'adaptive') {
    throw new UsageError(`--fusion must be rrf, linear or adaptive, got ${fusion}`);
  }
  const switches: EvalSwitches = {};
  if (values['no-planning']) switches.planning = false;
  if (values['no-expansion']) switches.expansion = false;
  if (values['no-anchor']) switches.anchors = false;
  if (values['no-definitions']) switches.definitions = false;
  if (values['no-focus']) switches.focusScoring = false;
  if (values['no-report-focus']) switches.reportFocus = false;
  if (values['no-doc-demotion']) switches.docDemotion = false;
  if (values['no-boilerplate']) switches.boilerplate = false;
  const fileScore = values['file-score'];
  if (fileScore !== undefined) {
    if (fileScore !== 'best' && fileScore !== 'decayed' && fileScore !== 'auto') {
      throw new UsageError(`--file-score must be best, decayed or auto, got ${fileScore}`);
    }
    switches.fileScore = fileScore;
  }
  if (values['vector-weight'] !== undefined) {
    const w = Number(values['vector-weight']);
    if (!(w >= 0 && w <= 1)) {
      throw new UsageError(
        `--vector-weight must be a number from 0 to 1, got ${values['vector-weight']}`,
      );
    }
    switches.vectorWeight = w;
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
      switches,
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
