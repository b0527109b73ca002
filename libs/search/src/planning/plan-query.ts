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
 * - fusion: 'linear' (default 0.7 vector / 0.3 keyword), 'rrf' (k = 60),
 *   or 'adaptive' (linear, weights from specificity: fusion-weights.ts);
 * - definition boost: one fusion scale for the chunk defining a named
 *   symbol (definitions.ts), unchanged from before planning;
 * - anchors: anchors.ts; focus: focus.ts; filters: merge-filter.ts;
 * - candidate depths: max(5 * limit, 50) per side, x3 when collapsing to
 *   files, at most 4000; anchors are matched over the same number of the
 *   best fused candidates, at most MAX_BOOST_DEPTH.
 */
import type { ParsedQuery } from '@codesift/analysis';
import { queryIdentifiers } from '../definitions.js';
import { DEFAULT_RRF_K, DEFAULT_VECTOR_WEIGHT } from '../fusion.js';
import { ANCHOR_BOOST_SHARE, planAnchors } from './anchors.js';
import { DEFAULT_FOCUS_MULTIPLIER, planFocus } from './focus.js';
import { adaptiveVectorWeight } from './fusion-weights.js';
import { keywordTerms } from './keyword-terms.js';
import { hasQueryFilters, mergeFilters } from './merge-filter.js';
import type { FusionMode, PlannerConfig, PlanOptions, QueryPlan } from './types.js';
import { vectorText } from './vector-text.js';

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;
/** Candidates per side: enough depth for fusion and boosts to reorder, cheap for the stores. */
export const MIN_CANDIDATES = 50;
export const CANDIDATES_PER_RESULT = 5;
/** Collapsing keeps one hit per file, so it needs candidates from more files. */
export const COLLAPSE_FACTOR = 3;
export const MAX_CANDIDATES = 4000;
/** Most candidates whose content is read for anchor matching. */
export const MAX_BOOST_DEPTH = 500;

export const DEFAULT_PLANNER_CONFIG: Readonly<Omit<PlannerConfig, 'synonyms'>> = Object.freeze({
  fusion: 'linear',
  vectorWeight: DEFAULT_VECTOR_WEIGHT,
  rrfK: DEFAULT_RRF_K,
  focusMultiplier: DEFAULT_FOCUS_MULTIPLIER,
  // Each feature stays switchable per request and per repository; the
  // evaluation decides which stay on by default.
  expansion: true,
  anchors: true,
  focusScoring: true,
});

const fmt = (n: number): string => String(Math.round(n * 1000) / 1000);

export function planQuery(
  parsed: ParsedQuery,
  options: PlanOptions,
  config: PlannerConfig,
): QueryPlan {
  const reasons: string[] = [];
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

  const filter = mergeFilters(options.filter, parsed.filters);
  if (hasQueryFilters(parsed.filters)) {
    reasons.push(
      `filters from the query text merged into the request's: ${JSON.stringify(filter)}`,
    );
  }

  // Keyword side.
  const expansion = options.expansion ?? config.expansion;
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
    fusion = { method, combiner: 'rrf', vectorWeight: null, rrfK, scale: 2 / (rrfK + 1) };
    reasons.push(`fusion: RRF, k = ${rrfK}`);
  } else {
    const w =
      method === 'adaptive'
        ? adaptiveVectorWeight(parsed.specificity)
        : (options.vectorWeight ?? config.vectorWeight);
    fusion = { method, combiner: 'linear', vectorWeight: w, rrfK: null, scale: 1 };
    reasons.push(
      method === 'adaptive'
        ? `fusion: adaptive, specificity ${fmt(parsed.specificity)} -> ${fmt(w)} vector / ${fmt(1 - w)} keyword`
        : `fusion: linear, ${fmt(w)} vector / ${fmt(1 - w)} keyword`,
    );
  }
  if (!run && fusion.combiner === 'linear') {
    reasons.push('fusion: the keyword side alone carries the score (no vector side)');
  }

  // Boosts.
  const identifiers = queryIdentifiers(parsed.text);
  const definitions = { identifiers, boost: fusion.scale };
  if (identifiers.length > 0) {
    reasons.push(
      `definitions: chunks defining ${identifiers.join(', ')} get +${fmt(fusion.scale)}`,
    );
  }
  const anchorsOn = options.anchors ?? config.anchors;
  const list = anchorsOn ? planAnchors(parsed) : [];
  const maxBoost = ANCHOR_BOOST_SHARE * fusion.scale;
  if (!anchorsOn) reasons.push('anchors: off');
  else if (list.length === 0) reasons.push('anchors: none in the query');
  else {
    reasons.push(
      `anchors: ${list.map((a) => `${a.text} (${a.kind}${a.caseSensitive ? ', case-sensitive' : ''})`).join(', ')}; holding all adds +${fmt(maxBoost)}`,
    );
  }

  const focusScoring = options.focusScoring ?? config.focusScoring;
  const focus = planFocus(parsed, options.focus, focusScoring, config.focusMultiplier);
  const out = focus.focus === 'tests' ? 'non-test files' : 'test files';
  reasons.push(
    `focus: ${focus.focus} (${focus.source === 'request' ? focus.reason : `inferred: ${focus.reason}`})` +
      (focus.scoring
        ? `; ${out} x ${fmt(focus.outOfFocusMultiplier)}`
        : focus.focus === 'all'
          ? ''
          : '; focus scoring off'),
  );

  return {
    version: 1,
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
    boostDepth: Math.min(depth, MAX_BOOST_DEPTH),
    reasons,
  };
}
