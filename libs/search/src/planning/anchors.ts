/**
 * Exact anchors: identifiers, codes, paths and quoted phrases the user
 * typed. A result that contains one verbatim gets a boost on top of its
 * fused score, because fusion alone ranks near-misses too close: the
 * vector side finds "Region D41" and "Area D" about as similar to "D40" as
 * the real thing, and RRF treats a keyword rank-1 exact hit like any other
 * rank-1 hit (the IndexFoundry finding).
 *
 * Matching rules:
 * - identifiers, codes and paths are case-sensitive (`D40` is not `d40`,
 *   `Graph` is not `graph`); quoted phrases are not (they are prose);
 * - word-boundary aware: the characters around a match must not continue
 *   an identifier, so `D40` matches `D40`, `(D40)`, `D40.` but not `D401`
 *   or `XD40`; a boundary is only required where the anchor itself starts
 *   or ends with a letter, digit, `_` or `$`;
 * - runs of whitespace in an anchor match any run of whitespace
 *   (`30 CFR 75.1725` across a line break);
 * - a path anchor also matches a result whose own path ends with it at a
 *   `/` boundary: the file the user named holds the path only in its name.
 *
 * Boost. Let scale be the largest score fusion can give (1 for linear and
 * adaptive; 2/(k+1) for RRF, a hit at rank 1 on both sides). A result
 * gets ANCHOR_BOOST_SHARE * scale * (weight of the anchors it holds /
 * weight of all anchors). With one anchor that is +0.5 in linear fusion:
 * for "D40", the chunk holding D40 gains 0.5 and "Region D41" / "Area D"
 * gain nothing, so they can only pass it by out-fusing it by more than half
 * the whole scale (a vector side worth 0.7 that rates D40's chunk at the
 * bottom of its list and the other at the top; adaptive fusion lowers that
 * weight for such queries). Half the definition boost (a whole scale) on
 * purpose: the chunk defining a named symbol still ranks above the chunks
 * that merely mention it, all of which contain the name.
 * Anchors found only in a pasted stack trace weigh half as much as those
 * typed by the user: a trace names many frames no single chunk holds.
 */
import {
  IDENTIFIER_SHAPES,
  type ParsedQuery,
  type PhraseNode,
  type TermNode,
} from '@codesift/query';
import type { AnchorKind, PlannedAnchor } from './types.js';

export const ANCHOR_BOOST_SHARE = 0.5;
/** Most anchors matched per query: a pasted log names dozens, and each costs a scan of every candidate. */
export const MAX_ANCHORS = 16;
export const TRACE_ANCHOR_WEIGHT = 0.5;

/** Bounds of a short one-line query that is itself anchored as a phrase. */
export const WHOLE_QUERY_MIN_WORDS = 3;
export const WHOLE_QUERY_MAX_WORDS = 12;
export const WHOLE_QUERY_MAX_CHARS = 160;

/**
 * A short, single-line query of a few words is often a pasted message
 * ("the session expired before the upload finished"): the code that emits it holds
 * those words verbatim, and nothing else does. So the whole query is also an
 * anchor (case-insensitive, whitespace-flexible) when the query has no
 * anchors of its own (identifiers, codes, quoted phrases). A question ("how are files skipped") rarely occurs
 * verbatim, so it costs nothing but a regex test over the candidates.
 */
export function wholeQueryAnchor(parsed: ParsedQuery): PlannedAnchor | null {
  const text = parsed.text.trim();
  if (parsed.isIdentifierOnly || parsed.hasTrace || text.includes('\n')) return null;
  if (text.length > WHOLE_QUERY_MAX_CHARS) return null;
  if (parsed.nodes.some((n) => n.kind === 'phrase')) return null;
  const words = text.split(/\s+/).length;
  if (words < WHOLE_QUERY_MIN_WORDS || words > WHOLE_QUERY_MAX_WORDS) return null;
  return { text, kind: 'phrase', caseSensitive: false, weight: 1 };
}

/** The anchors of a parsed query, in its order (phrases first, as ParsedQuery.anchors lists them). */
export function planAnchors(parsed: ParsedQuery): PlannedAnchor[] {
  const typed = planTypedAnchors(parsed);
  if (typed.length > 0) return typed;
  const whole = wholeQueryAnchor(parsed);
  return whole ? [whole] : [];
}

function planTypedAnchors(parsed: ParsedQuery): PlannedAnchor[] {
  const phrases = new Set(
    parsed.nodes.filter((n): n is PhraseNode => n.kind === 'phrase').map((n) => n.value.trim()),
  );
  const byValue = new Map<string, TermNode>();
  for (const t of parsed.terms) if (!byValue.has(t.value)) byValue.set(t.value, t);
  const out: PlannedAnchor[] = [];
  for (const text of parsed.anchors) {
    if (out.length >= MAX_ANCHORS) break;
    if (text.length < 2) continue;
    if (phrases.has(text)) {
      out.push({ text, kind: 'phrase', caseSensitive: false, weight: 1 });
      continue;
    }
    const t = byValue.get(text);
    const kind = anchorKind(t);
    const typed = t?.trace === undefined;
    out.push({ text, kind, caseSensitive: true, weight: typed ? 1 : TRACE_ANCHOR_WEIGHT });
  }
  return out;
}

function anchorKind(t: TermNode | undefined): AnchorKind {
  if (t === undefined) return 'identifier';
  if (t.shape === 'path' || t.trace === 'path') return 'path';
  if (t.trace !== undefined && !IDENTIFIER_SHAPES.has(t.shape)) return 'trace';
  return t.shape === 'code' ? 'code' : 'identifier';
}

/** A compiled anchor, built once per query. */
export interface AnchorMatcher {
  anchor: PlannedAnchor;
  test(content: string, path: string): boolean;
}

/** A character that continues an identifier: a match must not have one on a side where the anchor has one. */
const WORD_CHAR = /[\p{L}\p{N}_$]/u;

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The code point that ends just before `i` (a surrogate pair counts as one). */
function codePointBefore(s: string, i: number): string {
  if (i <= 0) return '';
  const low = s.charCodeAt(i - 1);
  const pair = i >= 2 && low >= 0xdc00 && low <= 0xdfff;
  return s.slice(pair ? i - 2 : i - 1, i);
}

/** The code point that starts at `i`. */
function codePointAt(s: string, i: number): string {
  const cp = s.codePointAt(i);
  return cp === undefined ? '' : String.fromCodePoint(cp);
}

export function compileAnchor(anchor: PlannedAnchor): AnchorMatcher {
  const text = anchor.text;
  // The word boundaries are checked beside each match with the one static WORD_CHAR
  // regex, not written into this one as \p{L} lookarounds: V8 builds the Unicode
  // tables of such a regex each time one is compiled (~0.3 ms, a tenth of a whole
  // search), and every query compiles its anchors anew.
  const re = new RegExp(
    text.trim().split(/\s+/).map(escapeRegex).join('\\s+'),
    anchor.caseSensitive ? 'gu' : 'giu',
  );
  const boundedBefore = WORD_CHAR.test(text.charAt(0));
  const boundedAfter = WORD_CHAR.test(text.charAt(text.length - 1));
  // A cheap pre-check skips the regex for the many candidates that lack the text entirely.
  const needle = anchor.caseSensitive ? text.trim().split(/\s+/)[0]! : '';
  const isPath = anchor.kind === 'path';
  const pathNeedle = text.replace(/^\.\//, '');
  return {
    anchor,
    test(content: string, path: string): boolean {
      if (isPath && (path === pathNeedle || path.endsWith(`/${pathNeedle}`))) return true;
      if (needle !== '' && !content.includes(needle)) return false;
      re.lastIndex = 0;
      for (let m = re.exec(content); m !== null; m = re.exec(content)) {
        const end = m.index + m[0].length;
        const freeBefore = !boundedBefore || !WORD_CHAR.test(codePointBefore(content, m.index));
        if (freeBefore && (!boundedAfter || !WORD_CHAR.test(codePointAt(content, end)))) {
          return true;
        }
        // Next try one character on: matches may overlap (`D40` inside `XD40 D40`).
        re.lastIndex = m.index + 1;
      }
      return false;
    },
  };
}

export interface AnchorMatch {
  /** The anchors found, by text. */
  matched: string[];
  /** Weight of the anchors found / weight of all anchors, 0..1. */
  coverage: number;
}

/** Which anchors a result holds, and their share of the total weight. */
export function matchAnchors(
  matchers: readonly AnchorMatcher[],
  content: string,
  path: string,
): AnchorMatch {
  let total = 0;
  let hit = 0;
  const matched: string[] = [];
  for (const m of matchers) {
    total += m.anchor.weight;
    if (m.test(content, path)) {
      hit += m.anchor.weight;
      matched.push(m.anchor.text);
    }
  }
  return { matched, coverage: total > 0 ? hit / total : 0 };
}
