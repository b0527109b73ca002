/**
 * Whether a query is worth sending to the LLM rewrite (rewrite-step.ts):
 * pure, no I/O, taken while planning so the plan says why. A rewrite
 * translates a question in the user's words into the repository's
 * identifiers; a query that already names code, or says too little to
 * translate, gains nothing and pays a model call for it.
 *
 * Never sent, whatever the mode: identifiers and qualified names alone,
 * stack traces, long pasted reports. Sent in 'auto': natural language of
 * at least MIN_PROSE_WORDS words that are not filler. 'on' sends short
 * keyword queries too; 'off' sends nothing. A skipped query that finds
 * nothing still gets one attempt (the engine's zero-results retry), unless
 * the skip was one of the "never sent" ones.
 */
import { LONG_REPORT_CHARS, type ParsedQuery } from '@codesift/query';
import type { RewriteMode } from './types.js';

/** Words (filler excluded) a query needs before 'auto' calls it natural language. */
export const MIN_PROSE_WORDS = 3;

export interface RewriteDecision {
  decision: 'run' | 'skip';
  reason: string;
  /** A skip the zero-results retry may override ('auto'/'on' with a model only). */
  retryOnEmpty: boolean;
}

export function decideRewrite(
  parsed: ParsedQuery,
  mode: RewriteMode,
  model: string | null,
): RewriteDecision {
  const never = (reason: string): RewriteDecision => ({
    decision: 'skip',
    reason,
    retryOnEmpty: false,
  });
  if (mode === 'off') return never('off (requested)');
  if (model === null)
    return never('no model configured (CODESIFT_LLM_MODEL or the config file\'s "llm.model")');
  const prose = classifyProse(parsed);
  if (prose.kind === 'natural')
    return { decision: 'run', reason: prose.reason, retryOnEmpty: false };
  if (prose.kind === 'never') return never(prose.reason);
  if (mode === 'on') {
    return {
      decision: 'run',
      reason: `short keyword query (${prose.words} words), rewrite on`,
      retryOnEmpty: false,
    };
  }
  return { decision: 'skip', reason: prose.reason, retryOnEmpty: true };
}

/**
 * What kind of text a query is, for the steps that translate natural
 * language into the repository's vocabulary (the LLM rewrite, the offline
 * bridge): 'natural' language of MIN_PROSE_WORDS words or more, 'short'
 * keyword queries, or text that is 'never' translated (a stack trace,
 * identifiers only, a long pasted report, code names alone).
 */
export function classifyProse(parsed: ParsedQuery): {
  kind: 'natural' | 'short' | 'never';
  reason: string;
  words: number;
} {
  if (parsed.hasTrace) return { kind: 'never', reason: 'the query holds a stack trace', words: 0 };
  if (parsed.isIdentifierOnly) {
    return { kind: 'never', reason: 'the query is identifiers only', words: 0 };
  }
  if (parsed.text.length >= LONG_REPORT_CHARS) {
    return { kind: 'never', reason: 'a long pasted report', words: 0 };
  }
  const words = parsed.terms.filter((t) => !t.stop && t.trace === undefined);
  if (words.length > 0 && words.every((t) => t.shape !== 'word')) {
    return {
      kind: 'never',
      reason: 'the query names code (identifiers, qualified names, paths)',
      words: 0,
    };
  }
  const prose = words.filter((t) => t.shape === 'word').length;
  if (prose >= MIN_PROSE_WORDS) {
    return { kind: 'natural', reason: `natural language (${prose} words)`, words: prose };
  }
  return {
    kind: 'short',
    reason: `a short keyword query (${prose} of ${MIN_PROSE_WORDS} words)`,
    words: prose,
  };
}
