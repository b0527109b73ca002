/**
 * Query variants: one query searched as several views of itself, each
 * retrieved on its own (in parallel, see variants-step.ts) and merged per
 * chunk before ranking. Pure, like the rest of the planner: the views that
 * need I/O (the model's phrasings) come in as data.
 *
 * The first variant is always the query as planned ('words'). The others,
 * in the order they are taken up to the requested count:
 *
 * - a pasted report (LONG_REPORT_CHARS or more, several lines): its
 *   'summary' (the first line that says something, usually the title) and
 *   the code 'entities' it names (identifiers, qualified names, paths, the
 *   functions and files of its stack frames). A long report buries its
 *   title's few words under the body's many; searched alone, the title finds
 *   what the title alone would, and the merge keeps it;
 * - a shorter query: its 'identifiers' alone, when it mixes code with prose;
 * - 'phrasing': the model's alternative phrasings (supplied by the caller).
 *
 * A view only exists when it differs from the query itself, so a short
 * query without identifiers has nothing to add and costs nothing.
 */
import {
  IDENTIFIER_SHAPES,
  LONG_REPORT_CHARS,
  type ParsedQuery,
  parseQuery,
} from '@codesift/query';
import { keywordTerms } from './keyword-terms.js';
import type {
  PlannedVariant,
  PlannerConfig,
  QueryPlan,
  VariantKind,
  VariantMerge,
  VariantsPlan,
} from './types.js';
import { vectorText } from './vector-text.js';

/** Most variants per query, the query itself included. */
export const MAX_VARIANTS = 8;
/** Code entities a report's 'entities' view searches at most. */
export const MAX_ENTITIES = 24;
/** A summary line needs this many characters to be worth a search of its own. */
const MIN_SUMMARY_CHARS = 12;
/** Weight of a view's scores in the merge, relative to the query itself (1). */
export const VARIANT_WEIGHT: Readonly<Record<VariantKind, number>> = Object.freeze({
  words: 1,
  summary: 1,
  entities: 0.8,
  identifiers: 0.8,
  phrasing: 0.8,
});
/** Every offline kind, in the order they are taken. */
export const OFFLINE_KINDS: readonly VariantKind[] = Object.freeze([
  'summary',
  'entities',
  'identifiers',
]);

/**
 * Views in words, which the vector side may embed (`vectors`); lists of
 * names never are (an identifier-only query is not either). Off by default:
 * a report's summary is its opening line, and the query's own vector side
 * already embeds a report's opening prose first (vector-text.ts; the
 * built-in model reads about 500 characters), so a second vector search
 * costs as much as the first to find much the same; a paraphrase embeds
 * next to the question it paraphrases. The views pay on the keyword side,
 * where wording matters. Embedded views share one batch (batched-embedder.ts).
 */
const PROSE_KINDS: ReadonlySet<VariantKind> = new Set<VariantKind>(['summary', 'phrasing']);

/** What the variants step may add beyond the query's own text. */
export interface VariantSources {
  /** The model's alternative phrasings, best first. */
  phrasings?: readonly string[];
}

export interface VariantOptions {
  /** Variants wanted, the query itself included; 0 or 1: off. */
  count: number;
  /** The kinds allowed besides 'words'. */
  kinds: readonly VariantKind[];
  merge: VariantMerge;
  /** Whether views in words (summary, phrasings) are embedded too; default false. */
  vectors?: boolean;
}

/** A pasted report: long and on several lines (the rule infer-focus.ts applies to a report's lead). */
export function isReport(parsed: ParsedQuery): boolean {
  const text = parsed.text.trim();
  return text.length >= LONG_REPORT_CHARS && text.includes('\n');
}

/** The variants of one planned query; `plan` is the query itself, as the planner made it. */
export function planVariants(
  parsed: ParsedQuery,
  plan: QueryPlan,
  config: Pick<PlannerConfig, 'synonyms'>,
  options: VariantOptions,
  sources: VariantSources = {},
): VariantsPlan {
  const count = Math.min(MAX_VARIANTS, Math.max(0, Math.floor(options.count) || 0));
  const base = { requested: count, merge: options.merge, kinds: [...options.kinds] };
  const off = (reason: string): VariantsPlan => ({ ...base, list: [], phrasings: null, reason });
  if (count <= 1) return off('variants: off');
  const allowed = new Set(options.kinds);
  const candidates: { kind: VariantKind; text: string }[] = [];
  const report = isReport(parsed);
  if (report && allowed.has('summary')) {
    const summary = summaryLine(parsed.text);
    if (summary !== null) candidates.push({ kind: 'summary', text: summary });
  }
  if (report && allowed.has('entities')) {
    const entities = codeEntities(parsed);
    if (entities.length > 0) candidates.push({ kind: 'entities', text: entities.join(' ') });
  }
  if (!report && allowed.has('identifiers') && !parsed.isIdentifierOnly) {
    const ids = codeEntities(parsed);
    if (ids.length > 0) candidates.push({ kind: 'identifiers', text: ids.join(' ') });
  }
  if (allowed.has('phrasing')) {
    for (const p of sources.phrasings ?? []) candidates.push({ kind: 'phrasing', text: p });
  }

  const primary: PlannedVariant = {
    kind: 'words',
    text: parsed.text,
    keyword: plan.keyword.terms,
    vector: { run: plan.vector.run, text: plan.vector.text },
    weight: VARIANT_WEIGHT.words,
    hits: null,
  };
  const list = [primary];
  const seen = new Set([normalized(parsed.text)]);
  for (const c of candidates) {
    if (list.length >= count) break;
    const key = normalized(c.text);
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    const v = variantOf(c.kind, c.text, plan, config, options.vectors === true);
    if (v.keyword.length > 0 || v.vector.run) list.push(v);
  }
  if (list.length === 1) return off('variants: none, the query has no other view worth searching');
  return {
    ...base,
    list,
    phrasings: null,
    reason: `variants: ${list.map((v) => v.kind).join(', ')}, retrieved in parallel, merged per chunk by ${options.merge === 'rrf' ? 'RRF' : 'max score'}`,
  };
}

/** One view planned the way the query itself is: its own keyword terms and vector text. */
function variantOf(
  kind: VariantKind,
  text: string,
  plan: QueryPlan,
  config: Pick<PlannerConfig, 'synonyms'>,
  vectors: boolean,
): PlannedVariant {
  const parsed = parseQuery(text);
  const vt = vectorText(parsed);
  // The query's own vector decision stands (no vectors, keyword only); names alone are not
  // embedded (an identifier-only query skips the vector side for the same reason).
  const run =
    plan.vector.run &&
    vectors &&
    PROSE_KINDS.has(kind) &&
    !parsed.isIdentifierOnly &&
    vt.text.trim() !== '';
  return {
    kind,
    text,
    keyword: keywordTerms(parsed, plan.keyword.expansion, config.synonyms),
    vector: { run, text: run ? vt.text : '' },
    weight: VARIANT_WEIGHT[kind],
    hits: null,
  };
}

/**
 * The first line that says something: not blank, not a bare markdown
 * heading or bold label, not a label ending in ':' (a template's
 * "Describe the bug:").
 */
export function summaryLine(text: string): string | null {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (/^#{1,6}\s/.test(line) && line.replace(/^#+\s*/, '').split(/\s+/).length <= 3) continue;
    if (/^\*\*[^*]+\*\*:?$/.test(line) || /:$/.test(line)) continue;
    const clean = line.replace(/^#+\s*/, '').trim();
    return clean.length >= MIN_SUMMARY_CHARS ? clean : null;
  }
  return null;
}

/**
 * The code a query names: identifier-shaped terms (identifiers, qualified
 * names, calls, paths, codes) and the functions and files of its stack
 * frames in the user's code, in order, once each.
 */
export function codeEntities(parsed: ParsedQuery): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const t of parsed.terms) {
    if (out.length >= MAX_ENTITIES) break;
    const code =
      t.trace === 'function' || t.trace === 'path' || (!t.stop && IDENTIFIER_SHAPES.has(t.shape));
    if (!code || t.value.length < 2 || seen.has(t.value)) continue;
    seen.add(t.value);
    out.push(t.value);
  }
  return out;
}

function normalized(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}
