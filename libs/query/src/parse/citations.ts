/** Spaced citations (`RFC 7231`, `30 CFR 75.1725`) merged into one code term. */
import type { QueryNode, TermNode } from '../types.js';

const RE_PLAIN_NUMBER = /^\d+(?:\.\d+)*$/;

function isCitationNumber(n: QueryNode | undefined): n is TermNode {
  return (
    n !== undefined && n.kind === 'term' && n.shape === 'number' && RE_PLAIN_NUMBER.test(n.value)
  );
}

function isCitationAcronym(n: QueryNode | undefined): n is TermNode {
  return n !== undefined && n.kind === 'term' && n.shape === 'acronym' && n.value.length <= 8;
}

/** Whether `b` follows `a` after exactly one space. */
function adjacent(input: string, a: TermNode, b: TermNode): boolean {
  return b.start === a.end + 1 && input.charCodeAt(a.end) === 32;
}

/**
 * Merges spaced citations into one code node: `30 CFR 75.1725`,
 * `RFC 7231`, `HTTP 404`, `42 U.S.C 1983` (an acronym followed by a
 * number, optionally preceded by a number, single spaces between).
 */
export function mergeCitations(input: string, nodes: QueryNode[], from: number): void {
  if (nodes.length - from < 2) return;
  let w = from;
  for (let r = from; r < nodes.length; r++) {
    const a = nodes[r]!;
    const b = nodes[r + 1];
    const c = nodes[r + 2];
    let merged: TermNode[] | null = null;
    if (a.kind !== 'term' || (a.shape !== 'number' && a.shape !== 'acronym')) {
      nodes[w++] = a;
      continue;
    }
    if (
      isCitationNumber(a) &&
      isCitationAcronym(b) &&
      isCitationNumber(c) &&
      adjacent(input, a, b) &&
      adjacent(input, b, c)
    ) {
      merged = [a, b, c];
    } else if (isCitationAcronym(a) && isCitationNumber(b) && adjacent(input, a, b)) {
      merged = [a, b];
    }
    if (merged) {
      const first = merged[0]!;
      const last = merged[merged.length - 1]!;
      const text = input.slice(first.start, last.end);
      const node: TermNode = {
        kind: 'term',
        text,
        start: first.start,
        end: last.end,
        value: merged.map((n) => n.value).join(' '),
        shape: 'code',
        stop: false,
      };
      if (first.trace !== undefined) node.trace = first.trace;
      nodes[w++] = node;
      r += merged.length - 1;
    } else {
      nodes[w++] = a;
    }
  }
  nodes.length = w;
}
