import { PRIVATE_KEY_RULE_ID, SECRET_RULES } from './secret-rules.js';

export interface Redaction {
  /** The text with every secret replaced by `[REDACTED:<rule>]`; same line count. */
  text: string;
  /** Secrets replaced, by rule id; empty when none. */
  counts: Record<string, number>;
  /** Share of the file's non-whitespace characters inside private-key blocks (0..1). */
  privateKeyShare: number;
}

interface Span {
  start: number;
  end: number;
  rule: string;
}

/**
 * Finds the secrets in `text` (secret-rules.ts) and replaces each with a
 * marker naming its rule. A secret spanning lines (a PEM block) keeps its
 * newlines after the marker, so every line after it keeps its number.
 */
export function redactSecrets(text: string): Redaction {
  const spans: Span[] = [];
  for (const rule of SECRET_RULES) {
    if (rule.hints && !rule.hints.some((h) => text.includes(h))) continue;
    rule.pattern.lastIndex = 0;
    for (const m of text.matchAll(rule.pattern)) {
      const [start, end] = m.indices?.groups?.secret ?? m.indices?.[0] ?? [0, 0];
      if (end <= start) continue;
      if (rule.accept && !rule.accept(text.slice(start, end))) continue;
      spans.push({ start, end, rule: rule.id });
    }
  }
  if (spans.length === 0) return { text, counts: {}, privateKeyShare: 0 };

  // Earlier rules were pushed first; a stable sort keeps them ahead of a
  // later rule's span at the same start, and overlapping later spans are dropped.
  spans.sort((a, b) => a.start - b.start);
  const counts: Record<string, number> = {};
  const parts: string[] = [];
  let at = 0;
  let keyChars = 0;
  for (const span of spans) {
    if (span.start < at) continue;
    const secret = text.slice(span.start, span.end);
    parts.push(text.slice(at, span.start), `[REDACTED:${span.rule}]`, newlinesOf(secret));
    counts[span.rule] = (counts[span.rule] ?? 0) + 1;
    if (span.rule === PRIVATE_KEY_RULE_ID) keyChars += nonWhitespace(secret);
    at = span.end;
  }
  parts.push(text.slice(at));
  const total = nonWhitespace(text);
  return { text: parts.join(''), counts, privateKeyShare: total > 0 ? keyChars / total : 0 };
}

/** Adds a file's redaction counts into a run's tally, rule by rule. */
export function addRedactionCounts(
  into: Record<string, number>,
  counts: Record<string, number>,
): void {
  for (const [rule, n] of Object.entries(counts)) into[rule] = (into[rule] ?? 0) + n;
}

function newlinesOf(s: string): string {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return '\n'.repeat(n);
}

function nonWhitespace(s: string): number {
  return s.replace(/\s+/g, '').length;
}
