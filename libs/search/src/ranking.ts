/**
 * Ranking, purely: the sides' hits fused into one list (fusion.ts), the
 * plan's boosts and focus applied (planning/rescore.ts), then collapsed to
 * files when asked and cut to the plan's limit. Everything read from the
 * stores (definitions, chunk contents) comes in as BoostEvidence.
 */
import type { KeywordHit, VectorHit } from '@codesift/stores';
import { collapseByPath, collapseDecayed } from './collapse.js';
import { orderByNames } from './definition-names.js';
import { collapseByCoverage } from './file-coverage.js';
import { type FusedHit, fuse } from './fusion.js';
import { withHistory } from './history-prior.js';
import { type Candidate, type Rescored, rescore } from './planning/rescore.js';
import type { QueryPlan } from './planning/types.js';
import { UNIT_CANDIDATE_FACTOR } from './units.js';
import { contrastShare, listContrast } from './vector-contrast.js';

/** The sides' answers; null for a side that did not run or was dropped. */
export interface SideHits {
  keyword: KeywordHit[] | null;
  vector: VectorHit[] | null;
}

export interface Fused {
  /** Best first. */
  hits: FusedHit[];
  /** The same hits as rescore's candidates, with the path and language the sides reported. */
  candidates: Candidate[];
  /** The keyword side's hits by id: unlike vector hits they carry line ranges. */
  keywordById: ReadonlyMap<string, KeywordHit>;
}

/** What the boosts need from the stores (see evidence.ts). */
export interface BoostEvidence {
  /** Ids of candidates holding a definition the query names. */
  definitions: ReadonlySet<string>;
  /** Ids of candidates holding a definition of a trace's other code words (plan.definitions.callers). */
  callerDefinitions?: ReadonlySet<string>;
  /** Content of the candidates checked for anchors and word coverage. */
  contents: ReadonlyMap<string, string>;
  /** Files by their rank in the repository's history for this query (history-prior.ts); absent: none. */
  historyRanks?: ReadonlyMap<string, number>;
}

/** A fused hit with its boosts and final score. */
export type Ranked = FusedHit & Rescored;

/**
 * The sides fused as the plan says. `noiseContrast` is the index's noise
 * probes' contrast (noise-floor.ts): with it, a plan fusing by contrast
 * weighs the vector side by its list's (vector-contrast.ts).
 */
export function fuseSides(
  plan: QueryPlan,
  sides: SideHits,
  noiseContrast: number | null = null,
): Fused {
  const paths = new Map<string, string>();
  const keywordById = new Map<string, KeywordHit>();
  for (const h of sides.keyword ?? []) {
    paths.set(h.id, h.path);
    keywordById.set(h.id, h);
  }
  for (const h of sides.vector ?? []) if (!paths.has(h.id)) paths.set(h.id, h.path);
  const hits = fuse({
    keyword: sides.keyword,
    vector: sides.vector,
    method: plan.fusion.combiner,
    k: plan.fusion.rrfK ?? undefined,
    vectorWeight: vectorWeightFor(plan, sides.vector, noiseContrast),
  });
  const candidates = hits.map((f): Candidate => {
    const language = keywordById.get(f.id)?.language;
    return {
      id: f.id,
      path: paths.get(f.id)!,
      fused: f.fused,
      ...(language === undefined ? {} : { language }),
    };
  });
  return { hits, candidates, keywordById };
}

function vectorWeightFor(
  plan: QueryPlan,
  vector: readonly VectorHit[] | null,
  noiseContrast: number | null,
): number | undefined {
  const w = plan.fusion.vectorWeight ?? undefined;
  if (w === undefined || !plan.fusion.contrast || vector === null) return w;
  return w * contrastShare(listContrast(vector.map((h) => h.score)), noiseContrast);
}

/**
 * Boosts and focus, then files (when the plan collapses), best first: at
 * most plan.limit files, or UNIT_CANDIDATE_FACTOR x plan.limit chunks, which
 * hydration turns into at most plan.limit units (units.ts).
 */
export function rank(plan: QueryPlan, fused: Fused, evidence: BoostEvidence): Ranked[] {
  const byId = new Map<string, FusedHit>(fused.hits.map((f) => [f.id, f]));
  let ranked: Ranked[] = rescore({
    plan,
    candidates: fused.candidates,
    definitions: evidence.definitions,
    ...(evidence.callerDefinitions ? { callerDefinitions: evidence.callerDefinitions } : {}),
    contents: evidence.contents,
  }).map((r) => ({ ...byId.get(r.id)!, ...r }));
  if (plan.collapseFiles) {
    const coverage = plan.files.coverage;
    ranked =
      coverage !== null
        ? collapseByCoverage(ranked, evidence.contents, coverage, (id) => fused.keywordById.get(id))
        : plan.files.score === 'decayed'
          ? collapseDecayed(
              ranked,
              plan.files.decay,
              plan.files.maxChunks,
              // A file's next chunks add their focused fusion score, not their boosts (see collapse.ts).
              (r) => r.fused * r.focusMultiplier,
            )
          : collapseByPath(ranked);
  } else if (plan.names !== null) {
    // Each file's chunks by the query words their definitions' names hold, in the file's positions.
    ranked = orderByNames(ranked, (id) => fused.keywordById.get(id), plan.names);
  }
  if (evidence.historyRanks) ranked = withHistory(ranked, evidence.historyRanks, plan.history);
  return ranked.slice(0, plan.collapseFiles ? plan.limit : plan.limit * UNIT_CANDIDATE_FACTOR);
}
