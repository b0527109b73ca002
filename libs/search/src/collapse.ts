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
