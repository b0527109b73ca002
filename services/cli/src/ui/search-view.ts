/**
 * Renders a SearchResponse for people: one block per result with
 * `path:start-end` (cyan), the symbol and kind, the score (dim), and the
 * snippet with line numbers and the query's terms highlighted. Colour only
 * on a TTY (see styleFor); the plain form is stable for pipes and tests.
 */
import path from 'node:path';
import {
  highlightTerms,
  noEvidenceExplanation,
  type QueryPlan,
  queryTerms,
  type SearchResponse,
  type SearchResult,
} from '@codesift/search';
import type { Style } from './format.js';

export interface SearchViewOptions {
  style: Style;
  /** Whether colour is on: highlighting is skipped when off (it would be invisible). */
  colour: boolean;
  /** Indexed root and working directory, to print paths a terminal can open; root null: as stored. */
  root: string | null;
  cwd: string;
  explain: boolean;
}

export function displayPath(p: string, root: string | null, cwd: string): string {
  if (root === null) return p;
  const rel = path.relative(cwd, path.join(root, p));
  return rel === '' ? p : rel.split(path.sep).join('/');
}

function formatScore(n: number | null, digits = 3): string {
  return n === null ? '—' : n.toFixed(digits);
}

export function formatExplain(r: SearchResult): string {
  const e = r.explain;
  if (!e) return '';
  const side = (name: string, score: number | null, rank: number | null) =>
    score === null ? `${name} —` : `${name} ${formatScore(score)} (#${rank})`;
  const boost = e.boost === undefined ? '' : ` · definition +${formatScore(e.boost, 4)}`;
  return `${side('keyword', e.keyword, e.keywordRank)} · ${side('vector', e.vector, e.vectorRank)}${boost} · fused ${formatScore(e.fused, 4)}`;
}

export function renderResults(res: SearchResponse, opts: SearchViewOptions): string {
  const st = opts.style;
  const terms = opts.colour ? queryTerms(res.query) : new Set<string>();
  const mark = (s: string) => st.bold(st.yellow(s));
  const blocks: string[] = [];
  for (const r of res.results) {
    const where = `${displayPath(r.path, opts.root, opts.cwd)}:${r.startLine}-${r.endLine}`;
    const head = [st.cyan(where)];
    if (r.symbol) head.push(st.bold(r.symbol));
    head.push(st.dim(`${r.kind} · ${r.language} · ${formatScore(r.score, 4)}`));
    if (r.stale) head.push(st.yellow(STALE_MARK));
    const lines = [head.join('  ')];
    if (opts.explain && r.explain) lines.push(`  ${st.dim(formatExplain(r))}`);
    const snippet = r.snippet.split('\n');
    const width = String(r.snippetStartLine + snippet.length - 1).length;
    snippet.forEach((text, i) => {
      const num = String(r.snippetStartLine + i).padStart(width);
      lines.push(`  ${st.dim(`${num} │`)} ${highlightTerms(text, terms, mark)}`);
    });
    blocks.push(lines.join('\n'));
  }
  return `${blocks.join('\n\n')}\n`;
}

/** Beside a result whose file changed since it was indexed (see SearchResult.stale). */
export const STALE_MARK = '[stale: changed since indexed]';

/** The warning for results from changed files, or '' when there are none. */
export function staleWarning(res: SearchResponse): string {
  const n = res.results.filter((r) => r.stale).length;
  if (n === 0) return '';
  const which = n === 1 ? '1 result is' : `${n} results are`;
  return `${which} from files changed since they were indexed: their lines may have moved (run \`codesift index\`, or keep \`codesift watch\` running)`;
}

/** One line under the results: how many, how long, and how they were fused. */
export function renderSummary(res: SearchResponse, style: Style): string {
  const n = res.results.length;
  const ms = res.timings.total ?? 0;
  return `${style.dim(`${n} result${n === 1 ? '' : 's'} in ${ms.toFixed(1)} ms · ${res.fusion} fusion · ${res.totalChunks} chunks indexed`)}\n`;
}

/**
 * "no results for …" with the query shortened to one readable line, and why
 * when the minimum-evidence rule dropped what the search matched: a user
 * who sees nothing should know that near misses were found and refused.
 */
export function renderNoResults(query: string, plan?: QueryPlan): string {
  const oneLine = query.replace(/\s+/g, ' ').trim();
  const shown = oneLine.length > 80 ? `${oneLine.slice(0, 77)}...` : oneLine;
  const why = noEvidenceExplanation(plan);
  return `no results for ${JSON.stringify(shown)}${why === null ? '' : `: ${why}`}\n`;
}
