/**
 * Query-adaptive fusion weights. The more a query names code exactly
 * (specificity, 0..1), the less an embedding of it adds: "D40" is found by
 * its letters, "how are edges inserted" by its meaning. So adaptive fusion
 * is linear fusion with
 *
 *   vectorWeight = clamp(0.8 - 0.6 * specificity, 0.2, 0.8)
 *
 * Prose (0) gets 0.8 vector; "Tell me about D40" (0.57) 0.46, close to an
 * even split; a bare identifier (1) 0.2, though such a query usually skips
 * the vector side altogether. Neither side ever drops below 0.2: a wrong
 * specificity estimate demotes a side, never silences it. The function is
 * non-increasing in specificity (tested).
 */
export const ADAPTIVE_VECTOR_WEIGHT_AT_ZERO = 0.8;
export const ADAPTIVE_SLOPE = 0.6;
export const ADAPTIVE_MIN_WEIGHT = 0.2;
export const ADAPTIVE_MAX_WEIGHT = 0.8;

export function adaptiveVectorWeight(specificity: number): number {
  const s = Number.isFinite(specificity) ? Math.min(1, Math.max(0, specificity)) : 0;
  const w = ADAPTIVE_VECTOR_WEIGHT_AT_ZERO - ADAPTIVE_SLOPE * s;
  // Rounded so plans print and compare cleanly; 1e-4 is far below any ranking effect.
  return Math.round(Math.min(ADAPTIVE_MAX_WEIGHT, Math.max(ADAPTIVE_MIN_WEIGHT, w)) * 1e4) / 1e4;
}
