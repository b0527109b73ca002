/** Keeps the first (best) item per file, in order: the "files" view of a ranking. */
export function collapseByPath<T extends { path: string }>(ranked: readonly T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of ranked) {
    if (seen.has(item.path)) continue;
    seen.add(item.path);
    out.push(item);
  }
  return out;
}

/**
 * Collapses a ranking to files, each scored from its chunks: the best
 * chunk's score plus decay^i times the i-th next chunk's, over at most
 * `maxChunks` chunks of the file. A file the question touches in several
 * places (a long module whose every part shares the report's vocabulary)
 * then outranks one with a single lucky chunk, while one strong chunk still
 * outweighs any number of weak ones (the added share is at most
 * decay + decay^2 + ... of the best). Each file keeps its best chunk as the
 * result; ties keep the input order.
 *
 * `support` is what a next chunk adds (default: its score). The engine
 * passes the chunk's score without the definition and anchor boosts: those
 * single out the one chunk that defines or quotes what the query names,
 * and counting them again for every chunk of a file that mentions it
 * would let a file of callers outrank the definition.
 */
export function collapseDecayed<T extends { path: string; score: number }>(
  ranked: readonly T[],
  decay: number,
  maxChunks: number,
  support: (item: T) => number = (item) => item.score,
): T[] {
  const files = new Map<string, { best: T; score: number; n: number; order: number }>();
  for (const item of ranked) {
    const f = files.get(item.path);
    if (f === undefined) {
      files.set(item.path, { best: item, score: item.score, n: 1, order: files.size });
    } else if (f.n < maxChunks) {
      f.score += decay ** f.n * support(item);
      f.n++;
    }
  }
  return [...files.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map((f) => ({ ...f.best, score: f.score }));
}
