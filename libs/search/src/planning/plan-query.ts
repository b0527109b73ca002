/**
 * The planner: ParsedQuery + options + config in, QueryPlan out. Pure (no
 * I/O, no clock, no randomness), so the same inputs always give the same
 * plan and tests can assert decisions without an index. Every decision is
 * recorded in the plan and explained in `reasons`. The rules and their
 * constants live in the small modules this composes:
 *
 * - keyword terms and weights: keyword-terms.ts (expansion on/off);
 * - what the vector side embeds: vector-text.ts; identifier-only queries
 *   skip the vector side (no embedding call), embedding anyway only if
 *   the keyword side finds nothing;
 * - fusion: 'linear' (default 0.4 vector / 0.6 keyword, chosen by evaluation), 'rrf' (k = 60),
 *   or 'adaptive' (linear, weights from specificity: fusion-weights.ts);
 * - definition boost: one fusion scale for the chunk defining a named
 *   symbol (definitions.ts), 1.5 scales in an identifier-only query
 *   (above the best fused score plus a full anchor match);
 * - anchors: anchors.ts; focus: focus.ts; filters: merge-filter.ts;
 * - a short query's files also by the words they cover: coverage.ts;
 * - candidate depths: max(5 * limit, 50) per side, x3 when collapsing to
 *   files, at most 4000; anchors are matched over the same number of the
 *   best fused candidates, at most MAX_BOOST_DEPTH.
 */
import { DEFAULT_LIMIT, MAX_LIMIT } from '@codesift/core';
import {
  cutLinks,
  LONG_REPORT_CHARS,
  type ParsedQuery,
  parseQuery,
  stripBoilerplate,
  type TraceNode,
} from '@codesift/query';
import {
  definitionPathWords,
  MAX_QUERY_IDENTIFIERS,
  PATH_EVIDENCE_CHARS,
  queryIdentifiers,
} from '../definitions.js';
import { DEFAULT_RRF_K, DEFAULT_VECTOR_WEIGHT } from '../fusion.js';
import { CONTRAST_RANK, MIN_CONTRAST_SHARE } from '../vector-contrast.js';
import { ANCHOR_BOOST_SHARE, planAnchors } from './anchors.js';
import { planCoverage } from './coverage.js';
import { DEFAULT_DOC_MULTIPLIER, DEFAULT_FOCUS_MULTIPLIER, planFocus } from './focus.js';
import { adaptiveVectorWeight } from './fusion-weights.js';
import { planHistory } from './history.js';
import { keywordTerms } from './keyword-terms.js';
import { hasQueryFilters, mergeFilters } from './merge-filter.js';
import { evidenceReason, planEvidence } from './min-evidence.js';
import { planNameOrder } from './name-order.js';
import { classifyProse, decideRewrite } from './rewrite-decision.js';
import { allSwitches, resolveSwitches } from './switches.js';
import type {
  BridgePlan,
  FusionMode,
  LlmRewritePlan,
  PlannerConfig,
  PlanOptions,
  QueryPlan,
  VariantKind,
} from './types.js';
import { OFFLINE_KINDS, planVariants, type VariantSources } from './variants.js';
import { piecesOutside, vectorText } from './vector-text.js';

// Defined in core, where the surfaces that only translate requests find them too.
export { DEFAULT_LIMIT, MAX_LIMIT };
/** Candidates per side: enough depth for fusion and boosts to reorder, cheap for the stores. */
export const MIN_CANDIDATES = 50;
export const CANDIDATES_PER_RESULT = 5;
/** Collapsing keeps one hit per file, so it needs candidates from more files. */
export const COLLAPSE_FACTOR = 3;
export const MAX_CANDIDATES = 4000;
/** Most candidates whose content is read for anchor matching. */
export const MAX_BOOST_DEPTH = 500;
/** Decayed file scores: weight of a file's i-th next chunk is decay^i, over at most this many chunks. */
export const DEFAULT_FILE_DECAY = 0.5;
export const FILE_SCORE_CHUNKS = 3;
/**
 * Query variants by default, the query itself included (0: off), and the
 * kinds they use: a pasted report's summary line and the code it names,
 * which raised Acc@5 on every set measured and lowered it on none (see
 * docs/EVALUATION.md). A short query has no such views, so it is searched
 * as before.
 */
export const DEFAULT_VARIANTS = 3;
export const DEFAULT_VARIANT_KINDS: readonly VariantKind[] = Object.freeze(['summary', 'entities']);
/** Every kind an explicit variant count may use: the offline ones, then the model's phrasings. */
export const ALL_VARIANT_KINDS: readonly VariantKind[] = Object.freeze([
  ...OFFLINE_KINDS,
  'phrasing',
]);

export const DEFAULT_PLANNER_CONFIG: Readonly<Omit<PlannerConfig, 'synonyms'>> = Object.freeze({
  fusion: 'linear',
  vectorWeight: DEFAULT_VECTOR_WEIGHT,
  rrfK: DEFAULT_RRF_K,
  focusMultiplier: DEFAULT_FOCUS_MULTIPLIER,
  // Each feature stays switchable per request and per repository; the
  // evaluation decides which stay on by default.
  ...allSwitches(true),
  // Off until the evaluation shows it helps every set (docs/EVALUATION.md, 2026-11-25).
  bridge: false,
  // Off: gained on the git-history sets, lost single queries elsewhere (docs/EVALUATION.md, 2026-11-26 hybrid round).
  vectorContrast: false,
  // Off: sympy, click, express and serde-json titles gained, but one natural-language
  // query of languages.jsonl and one hybrid swebench-dev report lost a rank (docs/EVALUATION.md, titles round).
  definedNames: false,
  docMultiplier: DEFAULT_DOC_MULTIPLIER,
  fileScore: 'best',
  fileDecay: DEFAULT_FILE_DECAY,
  variants: DEFAULT_VARIANTS,
  variantKinds: DEFAULT_VARIANT_KINDS,
  // Chosen by evaluation over max (docs/EVALUATION.md).
  variantMerge: 'rrf',
});

/**
 * Every planner feature off: the engine as it searched before query
 * planning (the user's words at weight 1, linear fusion at the configured
 * weight, no boosts, no focus, no rewrite, files by their best chunk).
 * The reference point for measuring what planning adds.
 */
export const NO_PLANNING: Readonly<PlanOptions> = Object.freeze({
  fusion: 'linear',
  rewrite: 'off',
  ...allSwitches(false),
  fileScore: 'best',
  variants: 0,
});

/**
 * The user's text in, the parsed query and its plan out: the boilerplate
 * rewrite (when on), parsing, planning. What the engine runs per search.
 */
export function planText(
  query: string,
  options: PlanOptions,
  config: PlannerConfig,
): { parsed: ParsedQuery; plan: QueryPlan } {
  const { parsed, rewrite } = rewriteAndParse(query, options, config);
  return { parsed, plan: planQuery(parsed, options, config, rewrite) };
}

/** The first half of planText: the boilerplate rewrite (when on) and parsing. */
export function rewriteAndParse(
  query: string,
  options: PlanOptions,
  config: PlannerConfig,
): { parsed: ParsedQuery; rewrite: QueryPlan['rewrite'] } {
  const boilerplate = options.boilerplate ?? config.boilerplate;
  const stripped = boilerplate ? stripBoilerplate(query, config.templateLines) : null;
  // Links go with the boilerplate: pasted pointers, not the question (see @codesift/query links.ts).
  const unlinked = boilerplate ? cutLinks(stripped?.text ?? query) : null;
  const keepLinks = unlinked === null || unlinked.text.trim() === '';
  const parsed = parseQuery(
    keepLinks ? (stripped?.text ?? query) : unlinked.text,
    config.ownFrames && resolveSwitches(options, config).installedFrames
      ? { ownFrames: config.ownFrames }
      : {},
  );
  const rewrite: QueryPlan['rewrite'] = {
    boilerplate,
    originalChars: query.length,
    removed: [
      ...(stripped?.removed ?? []).map((b) => ({
        kind: b.kind,
        lines: b.lines,
        chars: b.end - b.start,
      })),
      ...(keepLinks ? [] : unlinked.links).map((l) => ({
        kind: 'link' as const,
        lines: 1,
        chars: l.end - l.start - l.kept.length,
      })),
    ],
  };
  return { parsed, rewrite };
}

const fmt = (n: number): string => String(Math.round(n * 1000) / 1000);

export function planQuery(
  parsed: ParsedQuery,
  options: PlanOptions,
  config: PlannerConfig,
  rewrite: QueryPlan['rewrite'] = {
    boilerplate: false,
    originalChars: parsed.input.length,
    removed: [],
  },
): QueryPlan {
  const reasons: string[] = [];
  const on = resolveSwitches(options, config);
  if (rewrite.removed.length > 0) {
    const byKind = new Map<string, number>();
    for (const r of rewrite.removed) byKind.set(r.kind, (byKind.get(r.kind) ?? 0) + r.chars);
    reasons.push(
      `rewrite: cut ${[...byKind].map(([k, n]) => `${n} chars of ${k}`).join(', ')} (of ${rewrite.originalChars}) before parsing`,
    );
  }
  const limit = Math.min(
    MAX_LIMIT,
    Math.max(1, Math.floor(options.limit ?? DEFAULT_LIMIT) || DEFAULT_LIMIT),
  );
  const collapseFiles = options.collapseFiles === true;
  const depth = Math.min(
    MAX_CANDIDATES,
    Math.max(limit * CANDIDATES_PER_RESULT, MIN_CANDIDATES) * (collapseFiles ? COLLAPSE_FACTOR : 1),
  );
  const input = {
    chars: parsed.input.length,
    specificity: Math.round(parsed.specificity * 1e4) / 1e4,
    identifierOnly: parsed.isIdentifierOnly,
    hasTrace: parsed.hasTrace,
  };
  reasons.push(
    `query: ${parsed.input.length} chars, specificity ${fmt(parsed.specificity)}` +
      `${parsed.isIdentifierOnly ? ', identifiers only' : ''}${parsed.hasTrace ? ', stack trace found' : ''}`,
  );
  const named = installedFiles(parsed, config.ownFrames);
  if (named.length > 0) {
    reasons.push(
      `trace: frames printed from an installed copy name the repository's own ${named.length === 1 ? 'file' : 'files'} ${named.slice(0, 3).join(', ')}${named.length > 3 ? ', ...' : ''}: read as its code`,
    );
  }

  const filter = mergeFilters(options.filter, parsed.filters);
  if (hasQueryFilters(parsed.filters)) {
    reasons.push(
      `filters from the query text merged into the request's: ${JSON.stringify(filter)}`,
    );
  }

  // Keyword side.
  const expansion = on.expansion;
  const terms = keywordTerms(parsed, expansion, config.synonyms);
  const expanded = terms.filter((t) => t.source === 'synonym' || t.source === 'case-variant');
  reasons.push(
    expansion
      ? `keyword: ${terms.length} terms, ${expanded.length} of them synonyms or case variants at lower weight than the user's words`
      : `keyword: ${terms.length} analyzer terms of the user's words, weight 1, expansion off`,
  );

  // Vector side.
  const vt = vectorText(parsed);
  let run = true;
  let fallbackOnEmpty = false;
  if (options.vectorAvailable === false) {
    run = false;
    reasons.push('vector: skipped, the index has no vectors or no embedder');
  } else if (options.keywordOnly) {
    run = false;
    reasons.push('vector: skipped, keyword-only requested');
  } else if (parsed.isIdentifierOnly) {
    run = false;
    fallbackOnEmpty = true;
    reasons.push(
      'vector: skipped, the query is identifiers only (no embedding call); embeds anyway if the keyword side finds nothing',
    );
  } else if (vt.text.trim() === '') {
    run = false;
    reasons.push('vector: skipped, nothing but filters to embed');
  } else if (vt.condensed) {
    reasons.push(
      `vector: embeds a ${vt.text.length}-char digest of the ${parsed.text.length}-char text (opening prose, error lines, frames, more prose)`,
    );
  } else {
    reasons.push("vector: embeds the user's own words (filters removed, no expansion)");
  }

  // Fusion.
  const method: FusionMode = options.fusion ?? config.fusion;
  const rrfK = options.rrfK ?? config.rrfK;
  let fusion: QueryPlan['fusion'];
  if (method === 'rrf') {
    fusion = {
      method,
      combiner: 'rrf',
      vectorWeight: null,
      rrfK,
      scale: 2 / (rrfK + 1),
      contrast: false,
    };
    reasons.push(`fusion: RRF, k = ${rrfK}`);
  } else {
    const w =
      method === 'adaptive'
        ? adaptiveVectorWeight(parsed.specificity)
        : (options.vectorWeight ?? config.vectorWeight);
    fusion = {
      method,
      combiner: 'linear',
      vectorWeight: w,
      rrfK: null,
      scale: 1,
      contrast: run && on.vectorContrast,
    };
    reasons.push(
      method === 'adaptive'
        ? `fusion: adaptive, specificity ${fmt(parsed.specificity)} -> ${fmt(w)} vector / ${fmt(1 - w)} keyword`
        : `fusion: linear, ${fmt(w)} vector / ${fmt(1 - w)} keyword`,
    );
  }
  if (!run && fusion.combiner === 'linear') {
    reasons.push('fusion: the keyword side alone carries the score (no vector side)');
  } else if (fusion.combiner === 'linear') {
    reasons.push(
      fusion.contrast
        ? `fusion: the vector weight scales with its list's contrast over the index's noise (top minus rank ${CONTRAST_RANK}), at least x ${fmt(MIN_CONTRAST_SHARE)}`
        : 'fusion: the vector weight as planned, whatever its list looks like (vector contrast off)',
    );
  }

  // Boosts.
  const definitionsOn = on.definitions;
  const failing = definitionsOn ? failingTrace(parsed) : null;
  const failingFunction = failing?.failingFunction ?? null;
  const spans = { codeSpans: on.codeSpans };
  const identifiers = definitionsOn ? definitionIdentifiers(parsed, failingFunction, spans) : [];
  // The trace's other code words (its callers, the library frames of a
  // report): a lesser boost, or the full one when the repository does not
  // define the failing function (a consumer's script calling the library).
  const callers =
    failingFunction === null
      ? []
      : queryIdentifiers(parsed.text, undefined, spans).filter(
          (w) => !identifiers.some((i) => i.toLowerCase() === w.toLowerCase()),
        );
  const pathWords =
    definitionsOn && parsed.text.length <= PATH_EVIDENCE_CHARS
      ? definitionPathWords(parsed.text)
      : [];
  // An identifier-only query asks for the definition: it then outweighs the best
  // fused score plus a full anchor match, so no call site can pass it. (In a
  // sentence the named symbol may be a side note: `env['rack.version']`.)
  const short = parsed.text.length <= PATH_EVIDENCE_CHARS;
  const boost = parsed.isIdentifierOnly ? fusion.scale * (1 + ANCHOR_BOOST_SHARE) : fusion.scale;
  const definitions = {
    enabled: definitionsOn,
    identifiers,
    boost,
    pathWords,
    tails: short,
    failingFunction,
    failingLocation: failing?.failingLocation ?? null,
    callers,
    callerShare: CALLER_BOOST_SHARE,
    forwarders: on.forwarders,
  };
  if (!definitionsOn) reasons.push('definitions: off');
  else if (failingFunction !== null) {
    reasons.push(
      `definitions: the trace failed in ${failingFunction} (its innermost frame in the repository's code), whose definition gets +${fmt(boost)}${identifiers.length > 1 ? `, as do those of ${identifiers.slice(1).join(', ')} outside the trace` : ''}` +
        (callers.length > 0
          ? `; the trace's other code words (${callers.join(', ')}) get +${fmt(boost * CALLER_BOOST_SHARE)}, or +${fmt(boost)} if the repository does not define ${failingFunction}`
          : '') +
        (definitions.failingLocation
          ? `; without a definition, the chunk holding ${definitions.failingLocation.path}${definitions.failingLocation.line === null ? '' : `:${definitions.failingLocation.line}`} gets it`
          : ''),
    );
  } else if (identifiers.length > 0) {
    reasons.push(
      `definitions: chunks defining ${identifiers.join(', ')} get +${fmt(boost)}${parsed.isIdentifierOnly ? ' (identifiers only: above any call site)' : ''}` +
        spannedReason(parsed.text, identifiers, on.codeSpans),
    );
  }
  const anchorsOn = on.anchors;
  const list = anchorsOn ? planAnchors(parsed) : [];
  const maxBoost = ANCHOR_BOOST_SHARE * fusion.scale;
  if (!anchorsOn) reasons.push('anchors: off');
  else if (list.length === 0) reasons.push('anchors: none in the query');
  else {
    reasons.push(
      `anchors: ${list.map((a) => `${a.text} (${a.kind}${a.caseSensitive ? ', case-sensitive' : ''})`).join(', ')}; holding all adds +${fmt(maxBoost)}`,
    );
  }

  const focus = planFocus(parsed, options.focus, {
    scoring: on.focusScoring,
    multiplier: config.focusMultiplier,
    reports: on.reportFocus,
    docMultiplier: on.docDemotion ? config.docMultiplier : 1,
    ...(config.ownTestWords ? { ownTestWords: config.ownTestWords } : {}),
  });
  const out = focus.focus === 'tests' ? 'non-test files' : 'test files';
  reasons.push(
    `focus: ${focus.focus} (${focus.source === 'request' ? focus.reason : `inferred: ${focus.reason}`})` +
      (focus.scoring
        ? `; ${out} x ${fmt(focus.outOfFocusMultiplier)}`
        : focus.focus === 'all'
          ? ''
          : '; focus scoring off') +
      (focus.docMultiplier !== 1 ? `; prose docs x ${fmt(focus.docMultiplier)}` : '') +
      (focus.docTreeMultiplier !== 1
        ? `; code in doc and example trees x ${fmt(focus.docTreeMultiplier)}`
        : '') +
      (focus.declarationMultiplier !== 1
        ? `; type declarations (.d.ts) x ${fmt(focus.declarationMultiplier)}`
        : '') +
      (focus.dataMultiplier !== 1
        ? `; manifests, configuration and data x ${fmt(focus.dataMultiplier)}`
        : '') +
      (focus.changelogMultiplier !== 1 ? `; changelogs x ${fmt(focus.changelogMultiplier)}` : '') +
      (focus.metadataMultiplier !== 1
        ? `; repository metadata x ${fmt(focus.metadataMultiplier)}`
        : ''),
  );

  const fileMode = options.fileScore ?? config.fileScore;
  const fileScore =
    fileMode === 'auto' ? (parsed.text.length >= LONG_REPORT_CHARS ? 'decayed' : 'best') : fileMode;
  const coverage = planCoverage(
    parsed,
    terms,
    collapseFiles && fileScore === 'best',
    on.fileCoverage,
    on.definedNames,
  );
  const files: QueryPlan['files'] = {
    mode: fileMode,
    score: fileScore,
    decay: config.fileDecay,
    maxChunks: FILE_SCORE_CHUNKS,
    coverage: coverage.plan,
  };
  if (collapseFiles) {
    reasons.push(
      fileScore === 'decayed'
        ? `files: best chunk + ${fmt(config.fileDecay)}^i x the next ${FILE_SCORE_CHUNKS - 1} chunks of the file${fileMode === 'auto' ? ` (auto: a ${parsed.text.length}-char report)` : ''}`
        : `files: each file at the score of its best chunk${fileMode === 'auto' ? ' (auto: a short query)' : ''}` +
            `; ${coverage.reason}`,
    );
  }

  const names = planNameOrder(parsed, terms, collapseFiles, on.nameOrder, identifiers);
  reasons.push(names.reason);

  const llmRewrite = planLlmRewrite(parsed, options);
  reasons.push(`llm rewrite: ${llmRewrite.decision}, ${llmRewrite.reason}`);
  const bridge = planBridge(parsed, on.bridge);
  reasons.push(`bridge: ${bridge.decision}, ${bridge.reason}`);
  const evidence = planEvidence(terms, on.minEvidence);
  reasons.push(evidenceReason(evidence));
  const history = planHistory(terms, parsed.isIdentifierOnly, on.history);
  reasons.push(history.reason);

  const plan: QueryPlan = {
    version: 1,
    rewrite,
    input,
    limit,
    collapseFiles,
    filter,
    keyword: { expansion, terms, depth },
    vector: { run, text: vt.text, condensed: vt.condensed, depth, fallbackOnEmpty },
    fusion,
    definitions,
    anchors: { enabled: anchorsOn, list, maxBoost },
    focus,
    files,
    names: names.plan,
    boostDepth: Math.min(depth, MAX_BOOST_DEPTH),
    llmRewrite,
    bridge,
    evidence,
    history: history.plan,
    variants: {
      requested: 0,
      merge: config.variantMerge,
      kinds: [],
      list: [],
      phrasings: null,
      reason: 'variants: off',
    },
    reasons,
  };
  return withVariants(plan, parsed, options, config);
}

/**
 * The plan with its variants planned (again, once the model's phrasings or
 * the bridge's identifiers are known) and the reason recorded. The record of
 * the phrasings step (`variants.phrasings`) is the step's, not the planner's:
 * planning again keeps it.
 */
export function withVariants(
  plan: QueryPlan,
  parsed: ParsedQuery,
  options: PlanOptions,
  config: PlannerConfig,
  sources: VariantSources = {},
): QueryPlan {
  const count = options.variants ?? config.variants;
  const kinds =
    options.variantKinds ??
    (options.variants === undefined ? config.variantKinds : ALL_VARIANT_KINDS);
  const variants = planVariants(
    parsed,
    plan,
    config,
    {
      count,
      kinds,
      merge: options.variantMerge ?? config.variantMerge,
      vectors: options.variantVectors === true,
    },
    sources,
  );
  const reasons = plan.reasons.filter((r) => !r.startsWith('variants:'));
  // Said when there are views, or when they were asked for and there are none.
  if (variants.list.length > 0 || (options.variants ?? 0) > 1) reasons.push(variants.reason);
  return { ...plan, variants: { ...variants, phrasings: plan.variants.phrasings }, reasons };
}

function planBridge(parsed: ParsedQuery, enabled: boolean): BridgePlan {
  const prose = classifyProse(parsed);
  const run = enabled && prose.kind === 'natural';
  return {
    enabled,
    decision: run ? 'run' : 'skip',
    reason: enabled ? prose.reason : 'switched off (--bridge, the config file or the default)',
    terms: [],
    candidates: 0,
    ms: null,
    outcome: null,
  };
}

function planLlmRewrite(parsed: ParsedQuery, options: PlanOptions): LlmRewritePlan {
  const mode = options.rewrite ?? 'auto';
  const model = options.llmModel ?? null;
  const { decision, reason, retryOnEmpty } = decideRewrite(parsed, mode, model);
  return {
    mode,
    decision,
    reason,
    model,
    retryOnEmpty,
    retry: false,
    terms: [],
    dropped: [],
    focus: null,
    vocabulary: 0,
    ms: null,
    fallback: null,
  };
}

/**
 * Share of the definition boost for a trace's other code words when the
 * failing function is defined: enough to keep them above the chunks that
 * merely mention them, less than the function that failed. 0.3, not 0.5: a
 * caller's chunk spells the failing call (`basket.subtotal()`), so it also
 * leads on the keyword side, and at half the boost it outranked the failing
 * function's own definition (the Swift trace of trace-search.test.ts);
 * swebench-dev is identical at 0.3 and the first 60 swebench-sympy reports
 * gain one query, keyword only.
 */
export const CALLER_BOOST_SHARE = 0.3;

/** The first trace that names where it failed (TraceNode.failingFunction). */
function failingTrace(parsed: ParsedQuery): TraceNode | null {
  for (const n of parsed.nodes) {
    if (n.kind === 'trace' && n.failingFunction !== null) return n;
  }
  return null;
}

/**
 * Which identifiers only a code span made code (`` `polyval` ``), said in
 * the definitions' reason; '' when none (or the switch is off).
 */
function spannedReason(text: string, identifiers: readonly string[], codeSpans: boolean): string {
  if (!codeSpans || !text.includes('`')) return '';
  const shaped = new Set(
    queryIdentifiers(text, undefined, { codeSpans: false }).map((i) => i.toLowerCase()),
  );
  const spanned = identifiers.filter((i) => !shaped.has(i.toLowerCase()));
  return spanned.length === 0 ? '' : ` (${spanned.join(', ')}: written as code in backticks)`;
}

/**
 * The names whose definitions get the full boost. With a trace that names
 * where it failed, that function comes first and the trace's other code
 * words are left to `callers`: boosting a caller as much let its chunk (more
 * words of the trace) outrank the function that failed. Code words written
 * outside the traces still count.
 */
function definitionIdentifiers(
  parsed: ParsedQuery,
  failing: string | null,
  spans: { codeSpans: boolean },
): string[] {
  if (failing === null) return queryIdentifiers(parsed.text, undefined, spans);
  const prose = piecesOutside(parsed, ['trace']).join('\n');
  const rest = queryIdentifiers(prose, MAX_QUERY_IDENTIFIERS - 1, spans).filter(
    (w) => w.toLowerCase() !== failing.toLowerCase(),
  );
  return [failing, ...rest];
}

/**
 * The repository files that a trace's frames printed from an installed copy
 * were read as: only the frames the parser took (a block's innermost), not
 * every path the engine could map.
 */
function installedFiles(parsed: ParsedQuery, own: PlannerConfig['ownFrames']): string[] {
  if (own === undefined || own.size === 0) return [];
  const files = new Set<string>();
  for (const n of parsed.nodes) {
    if (n.kind !== 'trace') continue;
    for (const f of n.frames) {
      const file = f.installed && f.path !== null ? own.get(f.path) : undefined;
      if (file !== undefined) files.add(file);
    }
  }
  return [...files];
}
