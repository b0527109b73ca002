import { readFileSync } from 'node:fs';
import { CodesiftError, errorMessage } from '@codesift/core';

/**
 * One query with known answers. Two line formats are accepted:
 * - the SWE-bench style: {id, repo, commit, query, query_title, relevant_files, relevant_lines}
 * - a single-repository style: {id, query, relevant_files, class?, grades?}
 */
export interface EvalQuery {
  id: string;
  /** The full query (for SWE-bench lines: the issue title and body). */
  query: string;
  /** A short form of the query, when the set has one (SWE-bench: the issue title). */
  queryTitle?: string;
  /** `owner/name`: which repository to check out; absent for single-repository sets. */
  repo?: string;
  commit?: string;
  /** Root-relative POSIX paths of the files that answer the query. */
  relevantFiles: string[];
  /**
   * Line-level answers (SWE-bench `relevant_lines`): per file, 1-based
   * inclusive line ranges at `commit`. Absent for sets without them.
   */
  relevantLines?: RelevantLines[];
  /** Graded relevance per path (higher is better); relevant files without one count as 1. */
  grades?: Record<string, number>;
  /** Query class for per-class metrics (e.g. 'exact-identifier'). */
  class?: string;
  /** Source line in the set file, for messages. */
  line: number;
}

export interface LineRange {
  start: number;
  end: number;
}

export interface RelevantLines {
  path: string;
  ranges: LineRange[];
}

export type QueryField = 'query' | 'query_title';

/** The text a query is run with for the chosen field. */
export function queryText(q: EvalQuery, field: QueryField): string {
  if (field === 'query_title') {
    if (q.queryTitle === undefined) {
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `query ${q.id} (line ${q.line}) has no query_title`,
        { hint: 'use --query-field query for sets without titles' },
      );
    }
    return q.queryTitle;
  }
  return q.query;
}

export function readQuerySet(file: string): EvalQuery[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CodesiftError('UNREADABLE', `cannot read query set ${file}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  return parseQuerySet(text, file);
}

/** Parses JSON Lines; blank lines and lines starting with `//` are skipped. */
export function parseQuerySet(text: string, source = '<query set>'): EvalQuery[] {
  const out: EvalQuery[] = [];
  const ids = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '' || raw.startsWith('//')) continue;
    const lineNo = i + 1;
    const fail = (why: string): never => {
      throw new CodesiftError('INVALID_ARGUMENT', `${source}:${lineNo}: ${why}`, {
        hint: 'each line is a JSON object {id, query, relevant_files, class?, grades?} or a SWE-bench line {id, repo, commit, query, query_title, relevant_files}',
      });
    };
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch (err) {
      fail(`not valid JSON (${errorMessage(err)})`);
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) fail('not a JSON object');
    const o = obj as Record<string, unknown>;
    const str = (key: string, required: boolean): string | undefined => {
      const v = o[key];
      if (v === undefined || v === null) {
        if (required) fail(`missing "${key}"`);
        return undefined;
      }
      if (typeof v !== 'string' || v.trim() === '') fail(`"${key}" must be a non-empty string`);
      return v as string;
    };
    const id = str('id', true)!;
    if (ids.has(id)) fail(`duplicate id "${id}"`);
    ids.add(id);
    const query = str('query', true)!;
    const queryTitle = str('query_title', false);
    const repo = str('repo', false);
    const commit = str('commit', false);
    const cls = str('class', false);
    if (repo !== undefined && !/^[^/\s]+\/[^/\s]+$/.test(repo)) fail(`"repo" must be owner/name`);
    if ((repo === undefined) !== (commit === undefined)) {
      fail('"repo" and "commit" go together: give both or neither');
    }
    if (commit !== undefined && !/^[0-9a-fA-F]{4,40}$/.test(commit)) {
      fail('"commit" must be a hex commit id');
    }

    let grades: Record<string, number> | undefined;
    if (o.grades !== undefined) {
      if (typeof o.grades !== 'object' || o.grades === null || Array.isArray(o.grades)) {
        fail('"grades" must be an object {path: grade}');
      }
      grades = {};
      for (const [p, g] of Object.entries(o.grades as Record<string, unknown>)) {
        if (typeof g !== 'number' || !Number.isFinite(g) || g < 0) {
          fail(`grade of "${p}" must be a number >= 0`);
        }
        grades[normalisePath(p)] = g as number;
      }
    }
    let relevant: string[] = [];
    if (o.relevant_files !== undefined) {
      if (
        !Array.isArray(o.relevant_files) ||
        o.relevant_files.some((p) => typeof p !== 'string' || p.trim() === '')
      ) {
        fail('"relevant_files" must be an array of paths');
      }
      relevant = (o.relevant_files as string[]).map(normalisePath);
    }
    let relevantLines: RelevantLines[] | undefined;
    if (o.relevant_lines !== undefined && o.relevant_lines !== null) {
      relevantLines = parseRelevantLines(o.relevant_lines, fail);
    }
    // Graded files are relevant too, so a set may give only grades.
    if (grades) {
      for (const [p, g] of Object.entries(grades))
        if (g > 0 && !relevant.includes(p)) relevant.push(p);
    }
    if (relevant.length === 0) fail('no relevant files ("relevant_files" or positive "grades")');

    const q: EvalQuery = { id, query, relevantFiles: [...new Set(relevant)], line: lineNo };
    if (queryTitle !== undefined) q.queryTitle = queryTitle;
    if (repo !== undefined) q.repo = repo;
    if (commit !== undefined) q.commit = commit;
    if (grades !== undefined) q.grades = grades;
    if (cls !== undefined) q.class = cls;
    if (relevantLines !== undefined && relevantLines.length > 0) q.relevantLines = relevantLines;
    out.push(q);
  }
  if (out.length === 0) {
    throw new CodesiftError('INVALID_ARGUMENT', `${source}: the query set has no queries`);
  }
  return out;
}

/** `[{path, ranges: [{start, end}]}]` with 1-based inclusive ranges, start <= end. */
function parseRelevantLines(value: unknown, fail: (why: string) => never): RelevantLines[] {
  const shape = '"relevant_lines" must be [{path, ranges: [{start, end}]}]';
  if (!Array.isArray(value)) fail(shape);
  const out: RelevantLines[] = [];
  for (const entry of value as unknown[]) {
    if (typeof entry !== 'object' || entry === null) fail(shape);
    const e = entry as Record<string, unknown>;
    if (typeof e.path !== 'string' || e.path.trim() === '' || !Array.isArray(e.ranges)) fail(shape);
    const ranges: LineRange[] = [];
    for (const r of e.ranges as unknown[]) {
      const { start, end } = (r ?? {}) as Record<string, unknown>;
      if (!Number.isInteger(start) || !Number.isInteger(end)) fail(shape);
      if ((start as number) < 1 || (end as number) < (start as number)) {
        fail(`a range of "${e.path}" in "relevant_lines" must have 1 <= start <= end`);
      }
      ranges.push({ start: start as number, end: end as number });
    }
    out.push({ path: normalisePath(e.path as string), ranges });
  }
  return out;
}

/** Relevance paths are compared with engine paths: POSIX, no leading './'. */
function normalisePath(p: string): string {
  return p.trim().replace(/\\/g, '/').replace(/^\.\//, '');
}
