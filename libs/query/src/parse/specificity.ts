/**
 * Query specificity: how much of a query names code exactly. The fusion
 * step turns it into weights (identifier-heavy queries lean on BM25 and
 * exact-anchor boosts, prose leans on the vector side), and identifier-only
 * queries skip the embedding call altogether.
 *
 * Formula. The query is cut into units: each top-level term, each quoted
 * phrase, and each signal term of a stack trace (filters are not units).
 * Each unit has a weight w in [0, 1] and a count c:
 *
 *   filler word ("tell", "me", "the"):  w = 0,                       c = 0.25
 *   trace path, function or error type:  w = 1,                       c = 1
 *   other term:                          w = SHAPE_WEIGHTS[shape],    c = 1
 *   phrase:                              w = max(0.5, max inner w),   c = 1
 *
 *   specificity = sum(w) / sum(c)          (0 for a query with no units)
 *
 * Filler words count a quarter so that "Tell me about D40" (1 / 1.75 =
 * 0.57) sits between "D40" (1) and a prose question (0), while a long
 * question's framing words cannot swamp one identifier either. A phrase is
 * worth at least 0.5: quoting asks for exact text even when it is prose.
 * Shape weights: identifiers and codes 1, a kebab word or a number 0.7
 * (often prose: "read-only", "3"), an acronym 0.6, a URL 0.5, a word 0.
 */
import type { QueryNode, TermNode, TermShape } from '../types.js';
import { IDENTIFIER_SHAPES } from './shape.js';

export const SHAPE_WEIGHTS: Readonly<Record<TermShape, number>> = {
  code: 1,
  path: 1,
  dotted: 1,
  call: 1,
  camel: 1,
  pascal: 1,
  snake: 1,
  screaming: 1,
  kebab: 0.7,
  number: 0.7,
  acronym: 0.6,
  url: 0.5,
  word: 0,
};

/** Count of a filler word in the denominator. */
export const FILLER_COUNT = 0.25;

/** Smallest weight of a quoted phrase. */
export const PHRASE_MIN_WEIGHT = 0.5;

interface Unit {
  w: number;
  c: number;
  identifier: boolean;
}

function termUnit(t: TermNode): Unit {
  if (t.stop) return { w: 0, c: FILLER_COUNT, identifier: false };
  // A frame's function or file and an error's type name code whatever their spelling (`parse`).
  if (t.trace !== undefined && t.trace !== 'message') return { w: 1, c: 1, identifier: true };
  return { w: SHAPE_WEIGHTS[t.shape], c: 1, identifier: IDENTIFIER_SHAPES.has(t.shape) };
}

function units(nodes: readonly QueryNode[]): Unit[] {
  const out: Unit[] = [];
  for (const n of nodes) {
    switch (n.kind) {
      case 'term':
        out.push(termUnit(n));
        break;
      case 'phrase': {
        let w = PHRASE_MIN_WEIGHT;
        let identifier = n.terms.length > 0;
        for (const t of n.terms) {
          const u = termUnit(t);
          if (u.w > w) w = u.w;
          if (!u.identifier) identifier = false;
        }
        out.push({ w, c: 1, identifier });
        break;
      }
      case 'trace':
        for (const t of n.terms) out.push(termUnit(t));
        break;
      case 'filter':
        break;
    }
  }
  return out;
}

export interface SpecificityResult {
  specificity: number;
  isIdentifierOnly: boolean;
}

/**
 * Specificity (see the module comment) and whether the query is made only
 * of identifiers: at least one unit, and every unit an identifier-shaped
 * term (code, path, dotted, call, camel, pascal, snake, screaming) or a
 * phrase of such terms. One filler or prose word is enough to say no,
 * because then the user's words carry meaning an embedding can use.
 */
export function computeSpecificity(nodes: readonly QueryNode[]): SpecificityResult {
  const us = units(nodes);
  let w = 0;
  let c = 0;
  let identifierOnly = us.length > 0;
  for (const u of us) {
    w += u.w;
    c += u.c;
    if (!u.identifier) identifierOnly = false;
  }
  const s = c > 0 ? w / c : 0;
  return { specificity: Math.min(1, Math.max(0, s)), isIdentifierOnly: identifierOnly };
}
