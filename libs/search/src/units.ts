/**
 * Result units, purely: the chunk list a search returns is turned into
 * self-contained pieces of code. Chunks are cut at the chunker's size limit,
 * so a long function comes back as overlapping windows and neighbouring
 * members as separate hits; a reader (or an agent) then gets fragments of
 * one answer spread over the top 10, crowding out the other files. So:
 *
 * - a hit inside a definition that fits UNIT_MAX_LINES widens to the whole
 *   definition (the chunk's symbol path names it), keeping the doc comment
 *   or decorators the hit starts with;
 * - hits of one file whose ranges overlap or touch merge into one range
 *   (again only up to UNIT_MAX_LINES), kept at the rank of the best; so do
 *   hits that lie inside one enclosing definition (two methods of a class,
 *   with the members between them): one range of that definition reads
 *   better than two fragments and frees a slot for another file;
 * - at most MAX_HITS_PER_FILE units per file are kept, so the top of the
 *   list shows more files.
 *
 * The file list (`--files`) is not built from units: it keeps each file's
 * best chunk.
 */

/** Longest range a hit is widened or merged to. */
export const UNIT_MAX_LINES = 120;
/** Units kept per file in the chunk list. */
export const MAX_HITS_PER_FILE = 3;
/** Ranges this many lines apart (or closer) count as touching: a blank line between members. */
export const MERGE_GAP_LINES = 2;
/** Ranked hits read per result, so that merging and the per-file cap still fill the limit. */
export const UNIT_CANDIDATE_FACTOR = 3;

export interface UnitRange {
  path: string;
  startLine: number;
  endLine: number;
  symbol: string | null;
  kind: string;
}

/** A definition of the hit's file, as the symbol table holds it. */
export interface UnitDefinition {
  qualifiedName: string;
  kind: string;
  startLine: number;
  endLine: number;
}

function span(startLine: number, endLine: number): number {
  return endLine - startLine + 1;
}

/**
 * The definition a hit is part of: the smallest one named by the hit's
 * symbol path that holds the hit's last line and spans at most
 * `maxLines`; null when there is none (the hit already is the whole
 * definition, or the definition is too long to return whole). The hit may
 * start before the definition: the chunker attaches a definition's doc
 * comment, decorators and attributes to it, the symbol table starts at the
 * signature, so a window of a C function or a decorated method begins a
 * few lines above its definition.
 */
export function enclosingDefinition(
  hit: UnitRange,
  defs: readonly UnitDefinition[],
  maxLines = UNIT_MAX_LINES,
): UnitDefinition | null {
  if (hit.symbol === null) return null;
  let best: UnitDefinition | null = null;
  let bestSpan = 0;
  for (const d of defs) {
    if (d.qualifiedName !== hit.symbol) continue;
    if (d.endLine < hit.endLine || d.startLine > hit.endLine) continue;
    // The limit is on the definition, as when the hit lies inside it: the
    // leading lines are the hit's own and come along.
    const s = span(d.startLine, d.endLine);
    if (s > maxLines) continue;
    if (best === null || s < bestSpan) {
      best = d;
      bestSpan = s;
    }
  }
  if (best === null) return null;
  return best.startLine >= hit.startLine && best.endLine === hit.endLine ? null : best;
}

/** The hit widened to its enclosing definition (see enclosingDefinition), leading lines kept, or itself. */
export function widenToDefinition<T extends UnitRange>(
  hit: T,
  defs: readonly UnitDefinition[],
  maxLines = UNIT_MAX_LINES,
): T {
  const d = enclosingDefinition(hit, defs, maxLines);
  return d === null
    ? hit
    : { ...hit, startLine: Math.min(d.startLine, hit.startLine), endLine: d.endLine };
}

function touching(a: UnitRange, b: UnitRange, gap: number): boolean {
  return a.startLine <= b.endLine + gap + 1 && b.startLine <= a.endLine + gap + 1;
}

/**
 * Whether two ranges of one file lie inside one definition that is neither
 * of them (their class, impl block or enclosing function): what is between
 * them is then more of the same definition, not unrelated code.
 */
export function insideOneDefinition(
  defs: readonly UnitDefinition[],
  a: UnitRange,
  b: UnitRange,
): boolean {
  const within = (d: UnitDefinition, r: UnitRange) =>
    d.startLine >= r.startLine && d.endLine <= r.endLine;
  const lo = Math.min(a.startLine, b.startLine);
  const hi = Math.max(a.endLine, b.endLine);
  return defs.some((d) => d.startLine <= lo && d.endLine >= hi && !within(d, a) && !within(d, b));
}

/**
 * Merges hits of one file whose ranges overlap or touch, or that `together`
 * says belong together, in rank order: each hit joins the best-ranked kept
 * hit it may join when the union spans at most `maxLines`; the kept hit
 * keeps its rank and every other field, its range becomes the union. A
 * union that may now join a later kept hit absorbs it too. A hit whose
 * symbol differs from the kept one's leaves the union's symbol as the best
 * hit's.
 */
export function mergeTouching<T extends UnitRange>(
  hits: readonly T[],
  maxLines = UNIT_MAX_LINES,
  gap = MERGE_GAP_LINES,
  together: (a: UnitRange, b: UnitRange) => boolean = () => false,
): T[] {
  const kept: T[] = [];
  const fits = (a: UnitRange, b: UnitRange) =>
    a.path === b.path &&
    span(Math.min(a.startLine, b.startLine), Math.max(a.endLine, b.endLine)) <= maxLines &&
    (touching(a, b, gap) || together(a, b));
  const union = (a: T, b: UnitRange): T => ({
    ...a,
    startLine: Math.min(a.startLine, b.startLine),
    endLine: Math.max(a.endLine, b.endLine),
  });
  for (const hit of hits) {
    const i = kept.findIndex((k) => fits(k, hit));
    if (i < 0) {
      kept.push(hit);
      continue;
    }
    kept[i] = union(kept[i]!, hit);
    // The grown range may now reach a later kept hit of the same file.
    for (let j = i + 1; j < kept.length; ) {
      if (fits(kept[i]!, kept[j]!)) {
        kept[i] = union(kept[i]!, kept[j]!);
        kept.splice(j, 1);
      } else {
        j++;
      }
    }
  }
  return kept;
}

/** At most `perFile` items of each path, in order. */
export function capPerFile<T extends { path: string }>(
  items: readonly T[],
  perFile = MAX_HITS_PER_FILE,
): T[] {
  const counts = new Map<string, number>();
  return items.filter((item) => {
    const n = counts.get(item.path) ?? 0;
    counts.set(item.path, n + 1);
    return n < perFile;
  });
}

/**
 * The files whose definitions toUnits(hits, _, limit) can use: the first
 * `limit` distinct paths in rank order. Units only merge within a file and
 * a file's first unit is never merged away or capped, so every file keeps a
 * unit ahead of all units of the files first seen after it; a file first
 * seen after `limit` others has no unit in the cut. Hydration reads the
 * symbols of these files alone (a search's hits span some 30 files).
 */
export function unitPaths(hits: readonly { path: string }[], limit: number): Set<string> {
  const paths = new Set<string>();
  for (const h of hits) {
    if (paths.size >= limit) break;
    paths.add(h.path);
  }
  return paths;
}

/** Widen, merge, cap, cut: the chunk list's hits as units, best first, at most `limit`. */
export function toUnits<T extends UnitRange>(
  hits: readonly T[],
  definitionsOf: (path: string) => readonly UnitDefinition[],
  limit: number,
): T[] {
  const widened = hits.map((h) => widenToDefinition(h, definitionsOf(h.path)));
  // Both ranges are of one file (mergeTouching checks that first).
  const together = (a: UnitRange, b: UnitRange) => insideOneDefinition(definitionsOf(a.path), a, b);
  return capPerFile(mergeTouching(widened, UNIT_MAX_LINES, MERGE_GAP_LINES, together)).slice(
    0,
    limit,
  );
}
