/** What the trace tests read off a parsed query: its trace blocks and their signal terms by role. */
import { parseQuery } from '../parse/parse.js';
import type { TraceNode } from '../types.js';

export function traces(input: string): TraceNode[] {
  return parseQuery(input).nodes.filter((n): n is TraceNode => n.kind === 'trace');
}

/** The values of a trace's signal terms of one role (`path`, `function`, `error-type`, `message`). */
export function signals(t: TraceNode, role: string): string[] {
  return t.terms.filter((x) => x.trace === role).map((x) => x.value);
}

/** The one trace block of `input`; fails the test when there is not exactly one. */
export function onlyTrace(input: string): TraceNode {
  const all = traces(input);
  if (all.length !== 1) throw new Error(`expected one trace block, got ${all.length}`);
  return all[0]!;
}
