import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
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
import type { IndexProgress } from '@codesift/pipeline';
import { type FusionMode, openLocalEngine } from '@codesift/search';
import {
  BRIDGE_OPTION,
  bridgeSwitch,
  HELP_OPTION,
  type OptionSpecs,
  optionHelp,
  parseCommandLine,
  REWRITE_OPTION,
  rewriteMode,
  VARIANT_OPTIONS,
  variantOptions,
} from '../command-line.js';
import { llmForEval } from '../context-mode.js';
import { indexFileFromOption, indexPathToWrite } from '../index-location.js';
import { type CliIO, EXIT, UsageError } from '../io.js';
import {
  lineProgress,
  type ProgressView,
  silentProgress,
  ttyProgress,
} from '../ui/progress-view.js';
import { FROM_GIT_OPTIONS, runFromGit } from './eval-from-git.js';

const TARGET_OPTIONS = {
  repo: {
    type: 'string',
    value: '<dir>',
    help: 'every query over this tree (indexed incrementally into <dir>/.codesift, or --index)',
  },
  index: { type: 'string', value: '<path>', help: 'index directory or .db file for --repo' },
  ignore: {
    type: 'string',
    multiple: true,
    value: '<pattern>',
    help: "gitignore-style pattern left out of both systems' corpus with --repo (repeatable); the set file itself is always left out when it lies inside the tree",
  },
  checkouts: {
    type: 'string',
    value: '<dir>',
    help: 'cache for per-commit checkouts (git archive) and their indexes, reused across runs; for sets whose lines name repo and commit',
  },
  'git-dir': {
    type: 'string',
    multiple: true,
    value: '<o/n>=<path>',
    help: 'git directory (bare or not) of repository o/n (repeatable)',
  },
  mirrors: {
    type: 'string',
    value: '<dir>',
    help: 'directory of git mirrors laid out as <owner>+<name>/repo',
  },
} as const satisfies OptionSpecs;

const RUN_OPTIONS = {
  set: { type: 'string', value: '<file>', help: 'the query set (required)' },
  'query-field': {
    type: 'string',
    value: '<field>',
    help: 'query or query_title (default query)',
  },
  'limit-queries': { type: 'string', value: '<n>', help: 'only the first n queries of the set' },
  'no-vectors': { type: 'boolean', help: 'keyword-only engine (no embedding model)' },
  context: {
    type: 'string',
    value: '<mode>',
    help: 'pattern (default) or llm: also index every checkout with contexts from the chat model (CODESIFT_LLM_MODEL at OLLAMA_HOST; an index of its own, cached by model and prompt version) and report it beside the pattern-context index, with deltas and the contexts each index got',
  },
  fusion: {
    type: 'string',
    value: '<method>',
    help: "rrf, linear or adaptive (default: the engine's)",
  },
  'vector-weight': {
    type: 'string',
    value: '<w>',
    help: 'vector weight of linear fusion, 0..1 (default 0.4)',
  },
} as const satisfies OptionSpecs;

const SWITCH_OPTIONS = {
  'no-planning': {
    type: 'boolean',
    help: 'every planner feature off: no expansion, anchors, definition boost, focus, rewrite; linear fusion; files by their best chunk (a switch given explicitly still applies, e.g. --fusion)',
  },
  'no-expansion': { type: 'boolean', help: 'no synonyms or identifier variants' },
  'no-anchor': { type: 'boolean', help: 'no boost for exact identifiers, codes, phrases' },
  'no-definitions': {
    type: 'boolean',
    help: 'no boost for the chunk defining a named symbol',
  },
  'no-installed-frames': {
    type: 'boolean',
    help: "a trace's frames in an installed copy of the repository stay a dependency's",
  },
  'no-forwarders': {
    type: 'boolean',
    help: 'a short wrapper calling a same-named, longer definition keeps the definition boost',
  },
  'no-code-spans': {
    type: 'boolean',
    help: "a short query's code spans (`polyval`) name no definition unless code-shaped",
  },
  'no-focus': { type: 'boolean', help: 'no focus scoring (tests, docs and code alike)' },
  'no-report-focus': { type: 'boolean', help: 'focus inference also reads pasted material' },
  'no-doc-demotion': {
    type: 'boolean',
    help: 'prose docs, doc/example trees and data files (implementation questions), repository metadata and changelogs not demoted',
  },
  'no-boilerplate': {
    type: 'boolean',
    help: 'keep environment reports and template text in the query',
  },
  'no-min-evidence': {
    type: 'boolean',
    help: "keep results when none of the query's own terms is in the index (identifier parts or synonyms alone)",
  },
  'no-history': {
    type: 'boolean',
    help: 'no history prior: the files of the commits whose messages match the query do not join the ranking',
  },
  'no-file-coverage': {
    type: 'boolean',
    help: "a short query's files by their best chunk alone, not also by the query words they cover",
  },
  'defined-names': {
    type: 'boolean',
    help: "word coverage counts a word that names one of a file's classes or functions twice, like a word of its file name (default off)",
  },
  'no-name-order': {
    type: 'boolean',
    help: "the chunk list: each file's chunks by score alone, not also by the query words their function names hold",
  },
  'vector-contrast': {
    type: 'boolean',
    help: "linear fusion scales the vector weight by how peaked the query's vector list is against the index's noise (default off)",
  },
  'file-score': {
    type: 'string',
    value: '<mode>',
    help: "best, decayed or auto: a file's score from its best chunk, or best plus a decayed share of its next chunks; auto: decayed for long (report) queries",
  },
  ...REWRITE_OPTION,
  ...BRIDGE_OPTION,
  ...VARIANT_OPTIONS,
  'variant-kinds': {
    type: 'string',
    value: '<kinds>',
    help: 'with --variants: only these kinds, comma-separated (summary, entities, identifiers, phrasing), for ablations',
  },
  'variant-vectors': {
    type: 'boolean',
    help: "variants: also embed the views in words (a report's summary, the model's phrasings), in one batch",
  },
  'no-baseline': { type: 'boolean', help: 'skip the BM25 baseline' },
  json: { type: 'boolean', help: 'print the full report as JSON (with per-query ranks)' },
  quiet: { type: 'boolean', short: 'q', help: 'no progress on stderr' },
  ...HELP_OPTION,
} as const satisfies OptionSpecs;

export const help = `Usage: codesift eval --set <file.jsonl> --repo <dir> [options]
       codesift eval --set <file.jsonl> --checkouts <dir> (--mirrors <dir> | --git-dir <owner/name>=<path>...) [options]
       codesift eval --from-git <git dir> --out <file.jsonl> [--max-queries <n>] [--since <date>] [--snapshot-every <k>]

Measures retrieval quality on a query set with known answers: each query is
searched with codesift and with a plain BM25 baseline (same files, generic
tokenizer), and both are scored side by side, overall, per query class and
per repository, on two lists:
  file lists   results collapsed to files (BM25 over whole files): Acc@1/5/10,
               Recall@5/10, MRR@10, nDCG@10 and latency
  chunk lists  the top 10 chunks as codesift search prints them (BM25 over
               40-line windows); a chunk is a hit when its file is relevant:
               Acc@1/5/10, MRR@10, P@10
Sets with line-level answers (relevant_lines) also get answer coverage: the
share of answering lines inside the first 10 hits and inside the first 400
returned lines, for codesift and for the windowed baseline; the baseline also
at equal returned lines (column Cov@cs-lines: as many lines as codesift's 10
hits hold for the same query).

With --context llm every checkout is indexed twice, with pattern contexts
(rows "codesift") and with contexts written by the chat model (rows
"cs+llm", then "Δ llm" = cs+llm − codesift); the same searches run on both.
The report ends with how many queries ranked their first relevant file higher
or lower, and each index's contexts: chunks by source (llm, pattern),
fallbacks by reason, model calls and cache hits. The LLM-context index is
cached under its own key (model and prompt version), so the pattern indexes
are reused as they are; an index built while the model could not be reached
is rebuilt on the next run, asking only for what contexts.db lacks.

Query set: JSON Lines, one query per line, either
  {"id", "query", "relevant_files": [...], "class"?, "grades"?: {path: grade}}
or the SWE-bench form {"id", "repo", "commit", "query", "query_title", "relevant_files", ...}.

Where the answers are searched:
${optionHelp(TARGET_OPTIONS)}

Options:
${optionHelp(RUN_OPTIONS)}

Feature switches (ablations; same semantics as codesift search):
${optionHelp(SWITCH_OPTIONS)}

Building a set from git history (no evaluation; merges, bots and releases,
reverts, short messages, mass changes, docs-only, tests-only and
whitespace-only commits are skipped):
${optionHelp(FROM_GIT_OPTIONS)}

Exit status: 0 when the evaluation ran (whatever the scores), 1 when it could
not run, 2 for a wrong command line.
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandLine(
    argv,
    { ...TARGET_OPTIONS, ...RUN_OPTIONS, ...SWITCH_OPTIONS, ...FROM_GIT_OPTIONS },
    false,
  );
  if (values.help) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  if (values['from-git'] !== undefined) {
    if (values.set !== undefined) throw new UsageError('give --set or --from-git, not both');
    return runFromGit(values, io);
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
  if (values['no-code-spans']) switches.codeSpans = false;
  if (values['no-installed-frames']) switches.installedFrames = false;
  if (values['no-forwarders']) switches.forwarders = false;
  if (values['no-focus']) switches.focusScoring = false;
  if (values['no-report-focus']) switches.reportFocus = false;
  if (values['no-doc-demotion']) switches.docDemotion = false;
  if (values['no-boilerplate']) switches.boilerplate = false;
  if (values['no-min-evidence']) switches.minEvidence = false;
  if (values['no-file-coverage']) switches.fileCoverage = false;
  if (values['no-history']) switches.history = false;
  if (values['defined-names']) switches.definedNames = true;
  if (values['no-name-order']) switches.nameOrder = false;
  if (values['vector-contrast']) switches.vectorContrast = true;
  const rewrite = rewriteMode(values.rewrite);
  if (rewrite) switches.rewrite = rewrite;
  const bridge = bridgeSwitch(values.bridge);
  if (bridge !== undefined) switches.bridge = bridge;
  Object.assign(switches, variantOptions(values));
  if (values['variant-vectors']) switches.variantVectors = true;
  if (values['variant-kinds'] !== undefined) {
    switches.variantKinds = values['variant-kinds']
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean) as EvalSwitches['variantKinds'];
  }
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

  const llmContext = llmForEval(
    values.context,
    values.repo === undefined ? undefined : path.resolve(io.cwd, values.repo),
    io.env,
  );

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
      : indexPathToWrite(root, false, io);
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
      ...(llmContext ? { llmContext } : {}),
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
