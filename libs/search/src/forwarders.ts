/**
 * Forwarding wrappers among same-named definitions. A library split into an
 * implementation and API layers defines one name several times: a
 * compatibility class's method calling the imported function of its name
 * (`def dup_lcm(self, f, g): return dup_lcm(self.to_dense(f), ...)`), an
 * API function calling the core module's (`return tables.render_table(rows)`). The definition bonus gives
 * each the same credit, so the layer a report's spelling matches wins over
 * the code that holds the logic. Here a definition of a few lines whose body
 * calls its own name, bare or through a part of a longer namesake's path,
 * is a forwarder: when such a longer definition exists in another file, the
 * forwarder yields its credit (the longer one keeps it). A call on some
 * value (`value.hashCode()`) names another type's method, not a namesake
 * the index can tell: it does not count. Read from the repository's own
 * code: no layer, path or naming convention is assumed.
 */

/** The longest definition (lines, signature included) that counts as a forwarder. */
export const FORWARDER_MAX_LINES = 6;

export interface SpannedDefinition {
  /** The name the query's identifier was looked up by (`hashCode`, `Graph.addEdge`). */
  name: string;
  path: string;
  startLine: number;
  endLine: number;
}

/**
 * Whether a definition's body calls its own name in one of `targets`' files
 * (the longer namesakes' paths): a bare call (`name(`, `new Name(`, a
 * generic `Name<`: an imported function, the class itself) or one qualified
 * by a part of a target's path (`tables.render_table(` for
 * `core/tables.py`, `core::encode(` for `core/mod.rs`). A call on some
 * value (`value.hashCode()`, `snapshot().toString()`) is the name of another
 * type's method, not the namesake's. The name's last part counts (`hashCode`
 * of `LazilyParsedNumber.hashCode`).
 */
export function callsOwnName(name: string, body: string, targets: readonly string[]): boolean {
  const last = lastPart(name);
  if (last === '') return false;
  const parts = new Set(targets.flatMap(pathParts));
  const calls = new RegExp(
    `(?:([\\p{L}\\p{N}_$]*)\\s*(?:\\.|::|->)\\s*)?${BEFORE}${escaped(last)}\\s*[(<]`,
    'gu',
  );
  for (const m of body.matchAll(calls)) {
    const qualifier = m[1];
    if (qualifier === undefined) {
      // `x.name` with nothing word-like before the dot (`f().name(`) is on a value too.
      if (/(?:\.|::|->)\s*$/u.test(body.slice(0, m.index))) continue;
      return true;
    }
    if (parts.has(normalized(qualifier))) return true;
  }
  return false;
}

/** A path's directories and its file name without extension, normalized. */
function pathParts(p: string): string[] {
  const segments = p.split('/');
  const file = segments.pop() ?? '';
  return [...segments, file.replace(/\.[^.]*$/u, '')].map(normalized).filter((s) => s !== '');
}

function normalized(word: string): string {
  return word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * A definition's body, from a chunk holding it: its lines after the one
 * declaring its name. A symbol's range may start at a decorator or an
 * annotation (`@overload` above `def polyval(`), whose next line is the
 * declaration, not a call.
 */
export function bodyLines(
  def: { name: string; startLine: number; endLine: number },
  chunk: { startLine: number; content: string },
): string {
  const lines = chunk.content
    .split('\n')
    .slice(
      Math.max(0, def.startLine - chunk.startLine),
      Math.max(0, def.endLine - chunk.startLine + 1),
    );
  const declared = lines.findIndex((l) => mentions(lastPart(def.name), l));
  return lines.slice(declared + 1).join('\n');
}

function lastPart(name: string): string {
  return name.split(/\.|::/).pop() ?? name;
}

function escaped(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// A word boundary that also holds for `$name`: the name is not part of a longer word.
const BEFORE = '(?<![\\p{L}\\p{N}_$])';
const AFTER = '(?![\\p{L}\\p{N}_$])';

function mentions(word: string, line: string): boolean {
  return new RegExp(`${BEFORE}${escaped(word)}${AFTER}`, 'u').test(line);
}

/** Lines a definition spans. */
function span(d: { startLine: number; endLine: number }): number {
  return d.endLine - d.startLine + 1;
}

/**
 * The short definitions (at most FORWARDER_MAX_LINES) that have a longer
 * definition of their name in another file: the ones that may forward to it,
 * before their bodies are read.
 */
export function mayForward<T extends SpannedDefinition>(defs: readonly T[]): T[] {
  const byName = new Map<string, T[]>();
  for (const d of defs) {
    const key = d.name.toLowerCase();
    byName.set(key, [...(byName.get(key) ?? []), d]);
  }
  return defs.filter(
    (d) =>
      span(d) <= FORWARDER_MAX_LINES &&
      byName.get(d.name.toLowerCase())!.some((e) => e.path !== d.path && span(e) > span(d)),
  );
}

export interface HoldingChunk {
  id: string;
  path: string;
  startLine: number;
  endLine: number;
  content: string;
}

/**
 * The chunks that lose the definition credit, each with the forwarder it
 * holds: each holds the first line of a definition that forwards
 * (mayForward, and its body calls its own name) and of no other definition
 * the query names. A chunk holding a forwarder and the implementation (one
 * class with both) keeps it.
 */
export function yieldingChunks<T extends SpannedDefinition>(
  defs: readonly T[],
  chunks: readonly HoldingChunk[],
): Map<string, T> {
  const holds = (c: HoldingChunk, d: T) =>
    d.path === c.path && d.startLine >= c.startLine && d.startLine <= c.endLine;
  const longer = (d: T) =>
    defs
      .filter(
        (e) =>
          e.name.toLowerCase() === d.name.toLowerCase() && e.path !== d.path && span(e) > span(d),
      )
      .map((e) => e.path);
  const yielding = new Set(
    mayForward(defs).filter((d) => {
      const c = chunks.find((x) => holds(x, d));
      return c !== undefined && callsOwnName(d.name, bodyLines(d, c), longer(d));
    }),
  );
  const out = new Map<string, T>();
  if (yielding.size === 0) return out;
  for (const c of chunks) {
    const held = defs.filter((d) => holds(c, d));
    if (held.length > 0 && held.every((d) => yielding.has(d))) out.set(c.id, held[0]!);
  }
  return out;
}
