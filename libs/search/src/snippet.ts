/**
 * Picks the few lines of a chunk that best show why it matched: the window
 * of at most `maxLines` lines covering the most distinct query terms (ties:
 * more term hits, then the earliest window), moved to start just above its
 * first hit.
 * A chunk that matched on meaning alone (no query term in it) shows its
 * first lines. Blank lines at the window's edges are trimmed, and very long
 * lines (minified code) are cut so a snippet stays a few hundred bytes.
 */
import { analyze } from '@codesift/analysis';

export const SNIPPET_MAX_LINES = 8;
export const SNIPPET_MAX_LINE_CHARS = 240;

export interface SnippetChoice {
  text: string;
  /** 1-based line in the file of the snippet's first line. */
  startLine: number;
  /** Inclusive. */
  endLine: number;
}

/** Terms of one line that are query terms, each once (for coverage) with its hit count. */
function lineTerms(line: string, terms: ReadonlySet<string>): Map<string, number> {
  const hits = new Map<string, number>();
  if (terms.size === 0 || line.trim() === '') return hits;
  for (const t of analyze(line.length > 4096 ? line.slice(0, 4096) : line)) {
    if (terms.has(t)) hits.set(t, (hits.get(t) ?? 0) + 1);
  }
  return hits;
}

export function selectSnippet(
  content: string,
  chunkStartLine: number,
  terms: ReadonlySet<string>,
  maxLines = SNIPPET_MAX_LINES,
): SnippetChoice {
  const lines = content.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const perLine = lines.map((l) => lineTerms(l, terms));
  const size = Math.max(1, Math.min(maxLines, lines.length));

  let bestStart = -1;
  let bestCover = 0;
  let bestHits = 0;
  for (let start = 0; start + size <= lines.length; start++) {
    const covered = new Set<string>();
    let hits = 0;
    for (let i = start; i < start + size; i++) {
      for (const [t, n] of perLine[i]!) {
        covered.add(t);
        hits += n;
      }
    }
    if (covered.size > bestCover || (covered.size === bestCover && hits > bestHits)) {
      bestStart = start;
      bestCover = covered.size;
      bestHits = hits;
    }
  }
  let from: number;
  let to: number;
  if (bestStart < 0 || bestCover === 0) {
    from = lines.findIndex((l) => l.trim() !== '');
    if (from < 0) from = 0;
    to = Math.min(lines.length, from + size) - 1;
  } else {
    // Slide the window down to start one line above its first hit (a doc comment or the
    // line before a call is usually the best context) while keeping its last hit in view.
    let firstHit = bestStart;
    while (perLine[firstHit]!.size === 0) firstHit++;
    let lastHit = bestStart + size - 1;
    while (perLine[lastHit]!.size === 0) lastHit--;
    const lo = Math.max(0, lastHit - size + 1);
    const hi = Math.min(firstHit, lines.length - size);
    from = Math.max(lo, Math.min(hi, firstHit - 1));
    to = from + size - 1;
  }
  while (from < to && lines[from]!.trim() === '') from++;
  while (to > from && lines[to]!.trim() === '') to--;
  const text = lines
    .slice(from, to + 1)
    .map((l) => (l.length > SNIPPET_MAX_LINE_CHARS ? `${l.slice(0, SNIPPET_MAX_LINE_CHARS)}…` : l))
    .join('\n');
  return { text, startLine: chunkStartLine + from, endLine: chunkStartLine + to };
}
