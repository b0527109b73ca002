/**
 * What the vector side embeds: the user's own words with the filters cut
 * out (ParsedQuery.text), never expansion terms (blending synonyms into an
 * embedding measurably hurt a comparable system, amanmcp ADR-034).
 *
 * A long pasted report is different: the built-in model reads only its
 * first 128 tokens (roughly 500 characters) and an Ollama model's context
 * is bounded, so embedding the raw first N characters of a 20 KB log would
 * mostly embed whatever came first, often frame after frame of the same
 * stack. Beyond EMBED_MAX_CHARS the text is condensed into a digest of the
 * user's own words, densest signal first:
 *
 * 1. the opening prose (up to EMBED_HEAD_CHARS, cut at a word boundary),
 *    where a report usually says what went wrong;
 * 2. each distinct error line of the stack traces (`TypeError: cannot read
 *    ...`);
 * 3. the distinct functions of the frames in the user's code (external
 *    frames are dependencies, not what is searched for);
 * 4. then the remaining prose, in order, until EMBED_MAX_CHARS.
 */
import type { ParsedQuery, TraceNode } from '@codesift/query';

/** Texts up to this long are embedded whole; longer ones are condensed to this length. */
export const EMBED_MAX_CHARS = 2000;
/** Opening prose kept first in a digest. */
export const EMBED_HEAD_CHARS = 400;

export interface VectorText {
  text: string;
  condensed: boolean;
}

export function vectorText(parsed: ParsedQuery): VectorText {
  const text = parsed.text;
  if (text.length <= EMBED_MAX_CHARS) return { text, condensed: false };
  return { text: digest(parsed), condensed: true };
}

/** The input's text outside the nodes of these kinds (traces, filters), piece by piece. */
export function piecesOutside(
  parsed: ParsedQuery,
  kinds: readonly ParsedQuery['nodes'][number]['kind'][],
): string[] {
  const pieces: string[] = [];
  let at = 0;
  for (const n of parsed.nodes) {
    if (!kinds.includes(n.kind)) continue;
    if (n.start > at) pieces.push(parsed.input.slice(at, n.start));
    at = n.end;
  }
  if (at < parsed.input.length) pieces.push(parsed.input.slice(at));
  return pieces;
}

function digest(parsed: ParsedQuery): string {
  const traces = parsed.nodes.filter((n): n is TraceNode => n.kind === 'trace');
  // The prose between traces, filters cut out (their spans are nodes too).
  const proseText = squeeze(piecesOutside(parsed, ['trace', 'filter']).join(' '));

  const parts: string[] = [];
  let room = EMBED_MAX_CHARS;
  const push = (s: string): void => {
    if (room <= 0 || s === '') return;
    const piece = s.length > room ? cutAtWord(s, room) : s;
    if (piece === '') return;
    parts.push(piece);
    room -= piece.length + 1;
  };
  const head =
    proseText.length > EMBED_HEAD_CHARS ? cutAtWord(proseText, EMBED_HEAD_CHARS) : proseText;
  push(head);
  const seen = new Set<string>();
  for (const t of traces) {
    for (const e of t.errors) {
      const line = squeeze(e.message === '' ? e.type : `${e.type}: ${e.message}`);
      if (seen.has(line)) continue;
      seen.add(line);
      push(line);
    }
  }
  const functions: string[] = [];
  for (const t of traces) {
    for (const f of t.frames) {
      if (f.external || f.function === null || seen.has(f.function)) continue;
      seen.add(f.function);
      functions.push(f.function);
    }
  }
  if (functions.length > 0) push(functions.join(' '));
  push(proseText.slice(head.length).trim());
  return parts.join('\n');
}

function squeeze(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** At most `max` characters of `s`, ending at a word boundary when there is one. */
function cutAtWord(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return (space > max / 2 ? cut.slice(0, space) : cut).trim();
}
