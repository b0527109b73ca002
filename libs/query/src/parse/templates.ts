/**
 * A repository's own issue and pull-request templates, learned from its
 * files: a report written with the template repeats the template's
 * headings, prompts and prefilled text, words that only the template file
 * itself contains, so a search over the whole report lands there. The lines
 * a template shows a reporter are collected here (normalized), and
 * boilerplate.ts cuts every line of a pasted report that equals one of
 * them. Nothing here names a tracker or a phrase: the set is whatever the
 * indexed repository's templates say.
 */

/** Where repositories keep issue and pull-request templates (GitHub, GitLab, Gitea). */
const TEMPLATE_PATH =
  /(?:^|\/)(?:\.github\/(?:ISSUE_TEMPLATE|PULL_REQUEST_TEMPLATE|DISCUSSION_TEMPLATE)\/[^/]+|\.github\/[^/]+\.md|\.gitlab\/(?:issue_templates|merge_request_templates)\/[^/]+|\.gitea\/(?:ISSUE_TEMPLATE|PULL_REQUEST_TEMPLATE)[^/]*(?:\/[^/]+)?|(?:docs\/)?(?:ISSUE_TEMPLATE|PULL_REQUEST_TEMPLATE)(?:\.md)?)$/i;

/**
 * Substrings every path TEMPLATE_PATH accepts contains one of (ASCII case
 * aside): a store can narrow a large manifest to these before the regex
 * runs, instead of handing over every path.
 */
export const TEMPLATE_PATH_HINTS: readonly string[] = [
  '.github/',
  '.gitlab/',
  '.gitea/',
  'issue_template',
  'pull_request_template',
];

/** Files read for templates at most, and characters per file: templates are short. */
export const MAX_TEMPLATE_FILES = 40;
export const MAX_TEMPLATE_CHARS = 20_000;
/** A normalized line shorter than this is never matched (`-`, `**`, `1.`). */
const MIN_LINE_CHARS = 4;

export function isTemplatePath(path: string): boolean {
  return TEMPLATE_PATH.test(path);
}

/**
 * A line as a reader sees it: Markdown markers (headings, quotes, list
 * bullets, task boxes, emphasis), surrounding quotes and a trailing colon
 * dropped, whitespace collapsed, lower case. `### Steps to reproduce:` and
 * `**steps to reproduce**` are the same line.
 */
export function normalizeTemplateLine(line: string): string {
  // A code fence is structure, not template text: cutting one would unbalance the report's code blocks.
  if (/^\s*(?:```|~~~)/.test(line)) return '';
  return line
    .replace(/<!--.*?-->/g, ' ')
    .replace(/^\s*(?:>\s*)*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)?/, '')
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["']|["']$/g, '')
    .replace(/\s*:$/, '')
    .toLowerCase();
}

function keep(out: Set<string>, line: string): void {
  const n = normalizeTemplateLine(line);
  if (n.length >= MIN_LINE_CHARS && /\p{L}/u.test(n)) out.add(n);
}

// Keys of GitHub issue forms and template front matter whose values a reporter sees.
const RE_FORM_KEY =
  /^(\s*)(?:-\s+)?(?:label|description|placeholder|value|title|about|name|options)\s*:\s*(.*)$/;

/** An issue form (YAML): the values of its visible keys, block scalars (`|`, `>`) included. */
function formLines(text: string, out: Set<string>): void {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = RE_FORM_KEY.exec(lines[i]!);
    if (m === null) continue;
    const value = m[2]!.trim();
    if (/^[|>][+-]?$/.test(value)) {
      const indent = m[1]!.length;
      for (let j = i + 1; j < lines.length; j++) {
        const l = lines[j]!;
        if (l.trim() !== '' && l.length - l.trimStart().length <= indent) break;
        keep(out, l);
        i = j;
      }
    } else if (value !== '') {
      keep(out, value);
    }
  }
}

/** A Markdown template: every line, front matter's visible values included. */
function markdownLines(text: string, out: Set<string>): void {
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(?:---|labels?\s*:|assignees\s*:)/.test(line)) continue;
    const front = /^\s*(?:name|about|title)\s*:\s*(.*)$/.exec(line);
    keep(out, front ? front[1]! : line);
  }
}

/** The normalized lines the repository's templates show a reporter. */
export function templateLines(files: readonly { path: string; text: string }[]): Set<string> {
  const out = new Set<string>();
  for (const f of files.slice(0, MAX_TEMPLATE_FILES)) {
    const text = f.text.slice(0, MAX_TEMPLATE_CHARS);
    if (/\.ya?ml$/i.test(f.path)) formLines(text, out);
    else markdownLines(text, out);
  }
  return out;
}
