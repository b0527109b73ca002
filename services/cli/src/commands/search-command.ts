import { CodesiftError } from '@codesift/core';
import type {
  FusionMode,
  QueryPlan,
  SearchEngine,
  SearchRequest,
  SearchResponse,
  SearchResult,
} from '@codesift/search';
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
import { globsFromCwd } from '../cwd-globs.js';
import { openEngineFromArgs } from '../engine-from-args.js';
import { type CliIO, EXIT, UsageError } from '../io.js';
import { styleFor } from '../ui/format.js';
import {
  renderNoResults,
  renderResults,
  renderSummary,
  type SearchViewOptions,
  staleWarning,
} from '../ui/search-view.js';

const OPTIONS = {
  index: {
    type: 'string',
    value: '<path>',
    help: 'index directory or .db file (default: the nearest .codesift/index.db in this directory or its parents, or their index in the user cache)',
  },
  limit: {
    type: 'string',
    short: 'n',
    value: '<n>',
    help: 'results to show (default 10, at most 100)',
  },
  lang: {
    type: 'string',
    multiple: true,
    value: '<lang>',
    help: 'only this language, e.g. typescript or ts (repeatable; an unknown one is refused)',
  },
  path: {
    type: 'string',
    multiple: true,
    value: '<glob>',
    help: "only paths matching, e.g. 'src/**' or src (repeatable)",
  },
  exclude: {
    type: 'string',
    multiple: true,
    value: '<glob>',
    help: "drop paths matching, e.g. '**/*.test.ts' (repeatable)",
  },
  fusion: {
    type: 'string',
    value: '<method>',
    help: 'rrf, linear or adaptive (default linear: 0.4 vector, 0.6 keyword; adaptive leans on keywords the more the query names code exactly)',
  },
  focus: {
    type: 'string',
    value: '<focus>',
    help: 'implementation, tests or all (default: inferred from the query); results out of focus score x0.5',
  },
  'no-expansion': {
    type: 'boolean',
    help: "search only the query's own words (no synonyms or identifier variants on the keyword side)",
  },
  'no-anchor': {
    type: 'boolean',
    help: "no boost for results holding the query's exact identifiers, codes or quoted phrases",
  },
  'no-focus': {
    type: 'boolean',
    help: 'no focus scoring (tests and code rank alike)',
  },
  ...REWRITE_OPTION,
  ...BRIDGE_OPTION,
  ...VARIANT_OPTIONS,
  files: { type: 'boolean', help: 'one result per file (its best chunk)' },
  'keyword-only': {
    type: 'boolean',
    help: 'skip the embedding model and the vector side',
  },
  explain: {
    type: 'boolean',
    help: "print the query plan (each decision and why) and each result's score parts: keyword, vector, fused, definition boost, anchor boost, focus multiplier",
  },
  deadline: {
    type: 'string',
    value: '<ms>',
    help: 'drop a side that has not answered after this long',
  },
  json: {
    type: 'boolean',
    help: 'print one JSON object: query, results (paths relative to the indexed root), timings, degraded, ...',
  },
  remote: {
    type: 'string',
    value: '<host:port>',
    help: 'ask a query service over gRPC (npm run cluster, or codesift serve) instead of opening an index here; the output is the same. The server decides about vectors (--keyword-only, --deadline and --index do not apply); --explain shows the score parts the protocol carries (no definition boost or anchors)',
  },
  token: {
    type: 'string',
    value: '<token>',
    help: 'bearer token for --remote (default: $CODESIFT_TOKEN)',
  },
  ...HELP_OPTION,
} as const satisfies OptionSpecs;

export const help = `Usage: codesift search [options] <query...>
       codesift search [options] -          read the query from stdin

Searches the local index with hybrid keyword (BM25) + semantic (vector)
retrieval. The query can be words ("where are edges inserted"), an
identifier (OllamaEmbedder), or pasted text such as a stack trace or a bug
report (use - and a pipe for long text). Finding nothing is not an error:
it prints "no results for ..." and exits 0. A query none of whose own words
or identifiers is in the index finds nothing, and says so, rather than what
its identifier parts or synonyms match (with vectors: unless a hit is closer
than text without meaning gets in this index).

Options:
${optionHelp(OPTIONS)}

Globs are matched against paths relative to the indexed root, or from a
subdirectory relative to it (as git reads pathspecs; ':/' starts from the
root: ':/docs/**'), the base the printed paths use; --remote globs are
root-relative. A plain path (src/search) means that file or directory, a glob
without a slash (*.go) matches file names at any depth below.

Per-repository settings: <root>/.codesift/config.json or <root>/.codesift.json,
  { "search": { "synonyms": { "search": ["grep"] }, "synonymsMode": "extend",
                "fusion": "adaptive", "vectorWeight": 0.7, "focusMultiplier": 0.5,
                "expansion": true, "anchors": true, "focusScoring": true } }
synonymsMode "replace" replaces a word's default synonyms; an empty list
removes them. The command-line options above override the file.

Exit status: 0 on success (also when nothing matched), 1 when the search
failed (no index, corrupt index), 2 for a wrong command line.

Environment:
  OLLAMA_HOST             Ollama server, for an index embedded with Ollama and the LLM rewrite
  CODESIFT_LLM_MODEL      chat model for the LLM rewrite (e.g. qwen3:0.6b); unset: no rewrite
                          (or "llm": { "model": ... } in the config file; see docs/LLM.md)
  CODESIFT_TOKEN          token for --remote when --token is not given
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  const limit = values.limit === undefined ? 10 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new UsageError(`--limit must be an integer from 1 to 100, got ${values.limit}`);
  }
  const fusion = values.fusion;
  if (fusion !== undefined && fusion !== 'rrf' && fusion !== 'linear' && fusion !== 'adaptive') {
    throw new UsageError(`--fusion must be rrf, linear or adaptive, got ${fusion}`);
  }
  const focus = values.focus;
  if (focus !== undefined && focus !== 'implementation' && focus !== 'tests' && focus !== 'all') {
    throw new UsageError(`--focus must be implementation, tests or all, got ${focus}`);
  }
  const rewrite = rewriteMode(values.rewrite);
  const bridge = bridgeSwitch(values.bridge);
  const variants = variantOptions(values);
  let deadlineMs: number | undefined;
  if (values.deadline !== undefined) {
    deadlineMs = Number(values.deadline);
    if (!(Number.isFinite(deadlineMs) && deadlineMs > 0)) {
      throw new UsageError(
        `--deadline must be a positive number of milliseconds, got ${values.deadline}`,
      );
    }
  }
  const query = await readQuery(positionals, io);
  exitQuietlyOnClosedPipe(io);

  const request: SearchRequest = {
    query,
    limit,
    collapseFiles: values.files,
    explain: values.explain,
    keywordOnly: values['keyword-only'],
    ...variants,
  };
  if (fusion) request.fusion = fusion as FusionMode;
  if (focus) request.focus = focus;
  if (rewrite) request.rewrite = rewrite;
  if (bridge !== undefined) request.bridge = bridge;
  if (values['no-expansion']) request.expansion = false;
  if (values['no-anchor']) request.anchors = false;
  if (values['no-focus']) request.focusScoring = false;
  if (deadlineMs !== undefined) request.deadlineMs = deadlineMs;
  const filter = {
    languages: values.lang ?? [],
    include: values.path ?? [],
    exclude: values.exclude ?? [],
  };
  if (filter.languages.length + filter.include.length + filter.exclude.length > 0) {
    request.filter = filter;
  }

  let response: SearchResponse;
  let root: string | null;
  if (values.remote !== undefined) {
    const address = values.remote.trim();
    if (address === '')
      throw new UsageError('--remote needs the gRPC address, e.g. 127.0.0.1:50051');
    for (const opt of ['index', 'deadline'] as const) {
      if (values[opt] !== undefined) throw new UsageError(`--${opt} does not apply with --remote`);
    }
    if (values['keyword-only']) {
      throw new UsageError(
        '--keyword-only does not apply with --remote: the query service decides (codesift serve --keyword-only)',
      );
    }
    // An empty token (CODESIFT_TOKEN=) means none, as for codesift serve.
    const token = (values.token ?? io.env.CODESIFT_TOKEN) || undefined;
    const { searchRemote } = await import('../remote/remote-search.js');
    ({ response, root } = await searchRemote(address, request, token));
  } else {
    if (values.token !== undefined) throw new UsageError('--token only applies with --remote');
    const engine = await openEngineFromArgs(
      { index: values.index, keywordOnly: values['keyword-only'] },
      io,
    );
    try {
      root = await rootOf(engine);
      if (request.filter) {
        request.filter = {
          ...request.filter,
          include: globsFromCwd(request.filter.include ?? [], root, io.cwd),
          exclude: globsFromCwd(request.filter.exclude ?? [], root, io.cwd),
        };
      }
      response = await engine.search(request);
    } finally {
      await engine.close();
    }
  }
  if (values.json) {
    io.stdout.write(`${JSON.stringify(toJson(response, root, values.explain))}\n`);
    return EXIT.ok;
  }
  const out = styleFor(io.stdout, io.env);
  const err = styleFor(io.stderr, io.env);
  for (const d of response.degraded) {
    const without = d.startsWith('rewrite:')
      ? 'searched without the rewrite'
      : 'results are from the other side only';
    io.stderr.write(`${err.yellow('warning:')} ${d} (${without})\n`);
  }
  const stale = staleWarning(response);
  if (stale) io.stderr.write(`${err.yellow('warning:')} ${stale}\n`);
  if (values.explain && response.plan) io.stdout.write(`${out.dim(renderPlan(response.plan))}\n`);
  if (response.results.length === 0) {
    io.stdout.write(renderNoResults(query, response.plan));
    return EXIT.ok;
  }
  const view = { style: out, colour: out.bold('x') !== 'x', root, cwd: io.cwd, explain: false };
  io.stdout.write(values.explain ? renderExplained(response, view) : renderResults(response, view));
  // The summary names the method asked for ('adaptive'), not only the combiner behind it.
  const fusionShown = response.plan?.fusion.method ?? response.fusion;
  io.stdout.write(`\n${renderSummary({ ...response, fusion: fusionShown }, out)}`);
  return EXIT.ok;
}

/** `codesift search x | head` closes stdout early; that is the reader's choice, not an error. */
function exitQuietlyOnClosedPipe(io: CliIO): void {
  if (io.stdout !== process.stdout) return;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

/** The query: the positionals joined (quotes optional), or stdin for `-`. */
async function readQuery(positionals: string[], io: CliIO): Promise<string> {
  if (positionals.length === 1 && positionals[0] === '-') {
    const stdin = (io as CliIO & { stdin?: NodeJS.ReadableStream }).stdin ?? process.stdin;
    const query = await readAll(stdin);
    if (query.trim() === '') throw new UsageError('the query read from stdin is empty');
    return query;
  }
  if (positionals.includes('-'))
    throw new UsageError("'-' (read stdin) must be the only query argument");
  const query = positionals.join(' ');
  if (query.trim() === '') throw new UsageError('missing <query> (or - to read it from stdin)');
  return query;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) {
    parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  }
  return Buffer.concat(parts).toString('utf8');
}

async function rootOf(engine: SearchEngine): Promise<string | null> {
  try {
    return (await engine.status()).root;
  } catch (err) {
    if (err instanceof CodesiftError) return null;
    throw err;
  }
}

/** The plan for --explain: what was searched and every decision, one per line. */
export function renderPlan(plan: QueryPlan): string {
  const lines = ['plan:'];
  for (const r of plan.reasons) lines.push(`  - ${oneLine(r, 160)}`);
  const terms = plan.keyword.terms;
  const shown = terms
    .slice(0, 24)
    .map((t) => (t.weight === 1 ? t.term : `${t.term}^${round(t.weight)}`));
  lines.push(
    `  keyword terms: ${shown.join(' ')}${terms.length > shown.length ? ` … (+${terms.length - shown.length})` : ''}`,
  );
  if (plan.vector.run || plan.vector.fallbackOnEmpty) {
    lines.push(`  vector text: ${JSON.stringify(oneLine(plan.vector.text, 120))}`);
  }
  for (const v of plan.variants?.list ?? []) {
    const hits = v.hits === null ? 'failed' : `${v.hits} hits`;
    lines.push(
      `  variant ${v.kind} (${hits}, weight ${round(v.weight)}): ${JSON.stringify(oneLine(v.text, 100))}`,
    );
  }
  const rw = plan.llmRewrite;
  if (rw?.ms != null) {
    lines.push(
      `  llm rewrite: ${rw.model}, ${rw.ms} ms${rw.retry ? ' (retry: nothing found)' : ''}; ` +
        (rw.fallback
          ? `fell back: ${oneLine(rw.fallback, 120)}`
          : `terms ${rw.terms.join(' ') || '(none)'}${rw.dropped.length > 0 ? `, dropped ${rw.dropped.join(' ')}` : ''}, focus ${rw.focus ?? '(unchanged)'}`),
    );
  }
  const br = plan.bridge;
  if (br?.ms != null) {
    lines.push(
      `  bridge: ${br.ms} ms, ${br.candidates} candidates; ` +
        (br.terms.length > 0
          ? `terms ${br.terms.map((t) => `${t.term}^${round(t.weight)}`).join(' ')}`
          : oneLine(br.outcome ?? '', 120)),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Each result's score parts, in the order they combine: (fused + boosts) x focus. */
export function formatScoreParts(r: SearchResult): string {
  const e = r.explain;
  if (!e) return '';
  const side = (name: string, score: number | null, rank: number | null) =>
    score === null ? `${name} —` : `${name} ${sig(score)} (#${rank})`;
  const parts = [side('keyword', e.keyword, e.keywordRank), side('vector', e.vector, e.vectorRank)];
  if (e.base !== undefined) parts.push(`fused ${e.base.toFixed(4)}`);
  if (e.boost !== undefined) parts.push(`definition +${e.boost.toFixed(4)}`);
  if (e.anchorBoost !== undefined) {
    parts.push(`anchor +${e.anchorBoost.toFixed(4)} (${(e.anchors ?? []).join(', ')})`);
  }
  if (e.focusMultiplier !== undefined && e.focusMultiplier !== 1) {
    parts.push(`focus x${e.focusMultiplier}`);
  }
  parts.push(`score ${e.fused.toFixed(4)}`);
  return parts.join(' · ');
}

/** The shared result view, with the score parts under each result's header line. */
function renderExplained(res: SearchResponse, view: SearchViewOptions): string {
  const blocks = res.results.map((r) => {
    const block = renderResults({ ...res, results: [r] }, view).replace(/\n$/, '');
    const nl = block.indexOf('\n');
    const head = nl < 0 ? block : block.slice(0, nl);
    const rest = nl < 0 ? '' : block.slice(nl);
    return `${head}\n  ${view.style.dim(formatScoreParts(r))}${rest}`;
  });
  return `${blocks.join('\n\n')}\n`;
}

/** Three significant digits: BM25 scores of a small index are tiny, fixed decimals would print 0. */
function sig(n: number): string {
  return String(Number(n.toPrecision(3)));
}

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function round(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/**
 * The --json shape: stable keys for scripts. Paths stay relative to the
 * indexed root, which `root` names (null when the index does not record it).
 */
function toJson(res: SearchResponse, root: string | null, explain: boolean): unknown {
  return {
    query: res.query,
    root,
    fusion: res.fusion,
    totalChunks: res.totalChunks,
    results: res.results.map((r) => ({
      path: r.path,
      startLine: r.startLine,
      endLine: r.endLine,
      symbol: r.symbol,
      kind: r.kind,
      language: r.language,
      score: r.score,
      snippet: r.snippet,
      snippetStartLine: r.snippetStartLine,
      chunkId: r.chunkId,
      stale: r.stale === true,
      ...(explain && r.explain ? { explain: r.explain } : {}),
    })),
    timings: res.timings,
    degraded: res.degraded,
    ...(explain && res.plan ? { plan: res.plan } : {}),
  };
}
