/**
 * The fake's deterministic stand-in for a query-rewriting model. The prompt
 * convention it reads (the query-side prompt is expected to follow it):
 *
 *   Vocabulary:
 *   addEdge, GraphStore, parse_flags
 *   <blank line>
 *   Question: where are edges inserted into the graph?
 *
 * Vocabulary items are separated by commas or new lines and end at a blank
 * line; an item's identifier is its first word (what follows it, e.g.
 * `addEdge [method] src/graph.ts`, is context); the question is the rest of
 * its line. It answers { terms, focus }: the identifiers sharing at least
 * one word (camelCase / snake_case split, lowercase, plural "s" dropped)
 * with the question, in vocabulary order, and as focus "tests" when the
 * question mentions tests, else "".
 */
export function vocabularyEcho(prompt: string): { terms: string[]; focus: string } {
  // The block ends at a blank line or the end of the text (not of a line: the flag is m).
  const vocabulary =
    /^vocabulary:[ \t]*\n?([\s\S]*?)(?:\n[ \t]*\n|(?![\s\S]))/im.exec(prompt)?.[1] ?? '';
  const question = /^question:\s*(.*)$/im.exec(prompt)?.[1] ?? '';
  const asked = new Set(words(question));
  const terms = vocabulary
    .split(/[,\n]/)
    .map((t) => t.trim().split(/\s/)[0] ?? '')
    .filter((t) => t !== '' && words(t).some((w) => asked.has(w)));
  return { terms, focus: asked.has('test') ? 'tests' : '' };
}

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1)
    .map((w) => (w.length > 3 && w.endsWith('s') ? w.slice(0, -1) : w));
}
