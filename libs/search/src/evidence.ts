/**
 * What the boosts read from the stores before ranking: where the symbols
 * the query names are defined (and which candidates hold them), and the
 * content of the best candidates for anchor matching and word coverage. The chunks read are
 * kept for hydration, so no chunk is fetched twice.
 */
import type { Chunk } from '@codesift/core';
import { errorMessage } from '@codesift/core';
import type { KeywordHit } from '@codesift/stores';
import {
  type ChunkRange,
  type Definition,
  holdsDefinition,
  lookupNames,
  preferBodies,
  preferByPath,
  preferDeclarations,
} from './definitions.js';
import { mayForward, type SpannedDefinition, yieldingChunks } from './forwarders.js';
import { historyRanks } from './history-prior.js';
import type { QueryPlan } from './planning/types.js';
import type { BoostEvidence, Fused } from './ranking.js';
import type { SearchIndex } from './search-index.js';

export interface Evidence extends BoostEvidence {
  /** Chunks read for anchors, by id. */
  chunks: ReadonlyMap<string, Chunk>;
  /** A store that failed without failing the search, e.g. 'definitions: ...'. */
  degraded: string[];
  /** What the evidence decided, for the plan's reasons (a forwarder that left its boost). */
  reasons: string[];
}

export async function gatherEvidence(
  index: SearchIndex,
  plan: QueryPlan,
  fused: Fused,
): Promise<Evidence> {
  const degraded: string[] = [];
  const reasons: string[] = [];
  let defs: Definition[] = [];
  let callerDefs: Definition[] = [];
  if (plan.definitions.enabled) {
    try {
      const d = plan.definitions;
      if (d.failingFunction === null) {
        defs = await lookupDefinitions(index, d.identifiers, d);
      } else {
        const failing = await lookupDefinitions(index, [d.failingFunction], d);
        const rest = d.identifiers.filter((i) => i !== d.failingFunction);
        const callers = await lookupDefinitions(index, d.callers, d);
        defs = [...failing, ...(await lookupDefinitions(index, rest, d))];
        // A failing function the repository does not define (a consumer's
        // script calling the library): the trace's other frames are what is left.
        if (failing.length > 0) callerDefs = callers;
        else {
          defs.push(...callers);
          // No symbol for it (no grammar, or a script outside the repository):
          // the frame's own file and line, if the candidates hold that file.
          defs.push(...locationDefinitions(fused.candidates, d.failingLocation));
        }
      }
    } catch (err) {
      // Symbols may live in another service (the cluster's symbol service):
      // without them the answer loses the definition boost, not its results.
      degraded.push(`definitions: ${errorMessage(err)}`);
    }
  }
  const [definitions = new Set<string>(), callerDefinitions = new Set<string>()] =
    await holdingDefinitions(index, fused.candidates, [defs, callerDefs], fused.keywordById);
  for (const id of definitions) callerDefinitions.delete(id);
  const chunks = new Map<string, Chunk>();
  const contents = new Map<string, string>();
  // Anchors match the content; so does word coverage (file-coverage.ts).
  const anchors = plan.anchors.enabled && plan.anchors.list.length > 0;
  if ((anchors || plan.files.coverage !== null) && fused.candidates.length > 0) {
    const ids = fused.candidates.slice(0, plan.boostDepth).map((c) => c.id);
    for (const c of await index.chunks.get(ids)) {
      chunks.set(c.id, c);
      contents.set(c.id, c.content);
    }
  }
  if (plan.definitions.forwarders) {
    const spanned = [...defs, ...callerDefs].filter(
      (d): d is Definition & SpannedDefinition => d.name !== undefined && d.endLine !== undefined,
    );
    // Bodies are read only when a short definition has a longer namesake elsewhere (rare).
    if (mayForward(spanned).length > 0) {
      const ids = [...new Set([...definitions, ...callerDefinitions])];
      const unread = ids.filter((id) => !chunks.has(id));
      if (unread.length > 0) for (const c of await index.chunks.get(unread)) chunks.set(c.id, c);
      const holding = ids.flatMap((id) => (chunks.has(id) ? [chunks.get(id)!] : []));
      for (const [id, d] of yieldingChunks(spanned, holding)) {
        definitions.delete(id);
        callerDefinitions.delete(id);
        reasons.push(
          `definitions: ${d.name} at ${d.path}:${d.startLine} forwards to a longer ${d.name} elsewhere, which keeps the boost`,
        );
      }
    }
  }
  const historyRanks = await historyEvidence(index, plan, degraded);
  return {
    definitions,
    callerDefinitions,
    contents,
    chunks,
    degraded,
    reasons,
    ...(historyRanks === null ? {} : { historyRanks }),
  };
}

/** The history's file ranks for the plan (history-prior.ts); null when it does not run or finds nothing. */
async function historyEvidence(
  index: SearchIndex,
  plan: QueryPlan,
  degraded: string[],
): Promise<Map<string, number> | null> {
  const h = plan.history;
  if (!h.enabled || !index.history) return null;
  try {
    const ranks = historyRanks(await index.history.similar(h.terms, h.commits), h.maxFiles);
    return ranks.size > 0 ? ranks : null;
  } catch (err) {
    // The history is a prior: without it the answer is the code side's alone.
    degraded.push(`history: ${errorMessage(err)}`);
    return null;
  }
}

/**
 * Where the symbols the query names (exactly, case-insensitively) are
 * defined: each identifier by its first lookup name that has a definition
 * (definitions.ts lookupNames), several definitions narrowed to those with
 * a body (preferBodies), to declarations over the impl blocks and
 * extensions that add to them (preferDeclarations), then by the query's path
 * evidence (preferByPath).
 */
async function lookupDefinitions(
  index: SearchIndex,
  identifiers: readonly string[],
  { pathWords, tails, failingFunction }: QueryPlan['definitions'],
): Promise<Definition[]> {
  const defs: Definition[] = [];
  for (const id of identifiers) {
    // The written name first (`a::b` as `a.b`), its tails only when the plan
    // allows; a trace's failing function is a symbol path, not prose: all its tails.
    const names =
      id === failingFunction
        ? lookupNames(id, { anyHead: true })
        : lookupNames(id).slice(0, tails ? undefined : 1);
    for (const name of names) {
      const needle = name.toLowerCase();
      const found: Definition[] = [];
      for (const s of await index.symbols.lookup(needle, { limit: 20 })) {
        if (s.name.toLowerCase() === needle || s.qualifiedName.toLowerCase() === needle) {
          found.push({
            path: s.path,
            startLine: s.startLine,
            signature: s.signature,
            kind: s.kind,
            name,
            endLine: s.endLine,
          });
        }
      }
      if (found.length === 0) continue;
      defs.push(...preferByPath(preferDeclarations(preferBodies(found)), pathWords));
      break;
    }
  }
  return defs;
}

/**
 * For each group of definitions, the ids of the candidates holding one of
 * them. Vector hits carry no line range: the candidates in a defining file
 * of any group are read once, together.
 */
async function holdingDefinitions(
  index: SearchIndex,
  candidates: readonly { id: string; path: string }[],
  groups: readonly (readonly Definition[])[],
  keywordById: ReadonlyMap<string, KeywordHit>,
): Promise<Set<string>[]> {
  const defPaths = new Set(groups.flatMap((defs) => defs.map((d) => d.path)));
  const out = groups.map(() => new Set<string>());
  const sort = (id: string, range: ChunkRange) => {
    groups.forEach((defs, i) => {
      if (holdsDefinition(range, defs)) out[i]!.add(id);
    });
  };
  const unknown: string[] = [];
  for (const f of candidates) {
    if (!defPaths.has(f.path)) continue;
    const k = keywordById.get(f.id);
    if (k) sort(f.id, k);
    else unknown.push(f.id);
  }
  if (unknown.length > 0) {
    for (const c of await index.chunks.get(unknown)) sort(c.id, c);
  }
  return out;
}

/**
 * The failing frame's location as definitions: each candidate file whose
 * path and the frame's end alike at a directory boundary (`Cart.swift`,
 * `/Users/me/shop/Sources/Shop/Cart.swift` and `Sources/Shop/Cart.swift`
 * are one file), at the frame's line (its first line when none is printed).
 */
export function locationDefinitions(
  candidates: readonly { path: string }[],
  location: { path: string; line: number | null } | null,
): Definition[] {
  if (!location) return [];
  const frame = location.path.replace(/^\.?\//, '');
  const same = (p: string) => p === frame || p.endsWith(`/${frame}`) || frame.endsWith(`/${p}`);
  const paths = new Set(candidates.map((c) => c.path).filter(same));
  return [...paths].map((path) => ({ path, startLine: location.line ?? 1 }));
}
