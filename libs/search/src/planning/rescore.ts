/**
 * Applies a plan's boosts to fused candidates, purely:
 *
 *   score = (fused + definitionBoost + anchorBoost) * focusMultiplier
 *
 * Additive boosts are in the fusion's own scale (plan.fusion.scale), so
 * they mean the same under RRF and linear fusion; the focus multiplier
 * comes last so that it demotes a boosted out-of-focus result as well.
 * Ties keep the fused order (the input order; the sort is stable).
 */
import { type AnchorMatcher, compileAnchor, matchAnchors } from './anchors.js';
import { focusMultiplier } from './focus.js';
import type { QueryPlan } from './types.js';

export interface Candidate {
  id: string;
  path: string;
  /** The store's language when known; else isTestPath detects it from the path. */
  language?: string;
  /** Score from fusion alone. */
  fused: number;
}

export interface Rescored extends Candidate {
  score: number;
  definitionBoost: number;
  anchorBoost: number;
  /** Anchors found in the content (empty when none or not checked). */
  anchorsMatched: string[];
  focusMultiplier: number;
}

export interface RescoreInput {
  plan: QueryPlan;
  /** Best first, as fusion ordered them. */
  candidates: readonly Candidate[];
  /** Ids of candidates holding a definition the query names. */
  definitions: ReadonlySet<string>;
  /** Ids of candidates holding a definition of a trace's other code words: callerShare of the boost. */
  callerDefinitions?: ReadonlySet<string>;
  /** Content of the candidates checked for anchors (the plan's boostDepth best); others get none. */
  contents: ReadonlyMap<string, string>;
}

export function compileAnchors(plan: QueryPlan): AnchorMatcher[] {
  return plan.anchors.enabled ? plan.anchors.list.map(compileAnchor) : [];
}

export function rescore(input: RescoreInput, matchers = compileAnchors(input.plan)): Rescored[] {
  const { plan } = input;
  const out: Rescored[] = input.candidates.map((c) => {
    const definitionBoost = input.definitions.has(c.id)
      ? plan.definitions.boost
      : input.callerDefinitions?.has(c.id)
        ? plan.definitions.boost * plan.definitions.callerShare
        : 0;
    let anchorBoost = 0;
    let anchorsMatched: string[] = [];
    const content = matchers.length > 0 ? input.contents.get(c.id) : undefined;
    if (content !== undefined) {
      const m = matchAnchors(matchers, content, c.path);
      anchorsMatched = m.matched;
      anchorBoost = plan.anchors.maxBoost * m.coverage;
    }
    const mult = focusMultiplier(plan.focus, c.path, c.language);
    return {
      ...c,
      score: (c.fused + definitionBoost + anchorBoost) * mult,
      definitionBoost,
      anchorBoost,
      anchorsMatched,
      focusMultiplier: mult,
    };
  });
  // A definition or anchor whose fused score is 0 ties an unboosted best hit: the boosted one wins.
  return out.sort(
    (a, b) =>
      b.score - a.score || b.definitionBoost - a.definitionBoost || b.anchorBoost - a.anchorBoost,
  );
}
