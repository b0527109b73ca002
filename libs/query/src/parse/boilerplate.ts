/**
 * Boilerplate in pasted text: the parts of a bug report that describe the
 * reporter's machine or repeat the issue template, not the problem. They
 * are dense in rare tokens (version strings, package names, kernel
 * releases) that only a version-report module, a requirements file or the
 * issue template itself contains, so a search over the whole text lands
 * there instead of on the faulty code. Found here, purely and in linear
 * time, so that the query side can drop them (`stripBoilerplate`) and
 * focus inference can ignore the words inside them (`pytest: 7.1` is not a
 * question about tests).
 *
 * Block kinds:
 * - `comment`: an HTML comment `<!-- ... -->` (issue templates put their
 *   instructions there; rendered issues never show them);
 * - `environment`: a run of lines that report versions: `key: value`,
 *   `key = value`, `pkg==1.2.3`, `"key": "value"` or `- Python version: 3.10`
 *   lines, in which at least MIN_VERSION_LINES values look like versions
 *   (`1.19.4`, `v2.3`, `None`, `null`) and at least half of the key/value
 *   lines do. Separator lines (`-----`), braces, `<details>` tags, blank
 *   lines and bracketed build lines (`[GCC 9.3.0]`) may sit inside the run.
 *   A short heading right above the run that names what follows
 *   (`INSTALLED VERSIONS`, `## System Information`, `Output of
 *   xr.show_versions()`, `$ python -m requests.help`, `Environment:`) goes
 *   with it.
 *
 * - `checklist`: two or more consecutive Markdown task-list lines
 *   (`- [ ] Minimal example — ...`, `- [x] I searched the issues`): a
 *   template's confirmations, the same in every issue of a repository.
 *
 * - `template`: lines equal (after normalizing Markdown markers and case)
 *   to a line of the repository's own issue or pull-request templates, when
 *   the caller passes them (templates.ts learns them from the indexed files).
 *
 * Ordinary code is safe: assignments rarely hold version strings, and a
 * block needs several of them.
 */
import { normalizeTemplateLine } from './templates.js';

export type BoilerplateKind = 'comment' | 'environment' | 'checklist' | 'template';

export interface BoilerplateBlock {
  kind: BoilerplateKind;
  /** UTF-16 offsets into the input, `end` exclusive. */
  start: number;
  end: number;
  /** Lines the block covers (1 for an inline comment). */
  lines: number;
}

/** A run needs at least this many version-like values to be an environment report. */
export const MIN_VERSION_LINES = 3;
/** Share of a run's key/value lines whose value must look like a version. */
export const MIN_VERSION_SHARE = 0.5;
/** Lines longer than this are never part of an environment block. */
const MAX_ENV_LINE = 200;
/** Neutral lines (blank, braces, tags) a run may span before it ends. */
const MAX_NEUTRAL_GAP = 3;

// `key: value`, `key = value`, `"key": "value",`, `- key: value`, `* Key version: value`
const RE_KEY_VALUE =
  /^\s*(?:[-*+]\s+)?(?:\*\*)?["']?([A-Za-z_][\w .+/()-]{0,60}?)["']?(?:\*\*)?\s*(?::|=|==|>=|~=|\s-\s)\s*(.*?)\s*,?\s*$/;
// `numpy==1.19.4` (pip freeze), `numpy 1.19.4` (conda list / pip list)
const RE_PACKAGE_PIN = /^\s*([A-Za-z][\w.-]*)\s*(?:==|===|@|\s{2,}|\s)\s*(v?\d+\.\d+\S*)\s*$/;
const RE_VERSION_VALUE =
  /^["']?(?:v?\d+(?:\.\d+)+(?:[-.+_]?[\w.+-]*)?(?:\s.*)?|v?\d+\.\d+\w*|none|null|nil|unknown|n\/a|not installed|"")["']?,?$/i;
const RE_NEUTRAL =
  /^\s*(?:[-=_*#~]{3,}|[{}[\],]+|<\/?(?:details|summary|pre|code|tt|p|br)\b[^>]*>.*|```\w*|\[[^\]]*\]|\$?\s*)\s*$/i;
const RE_HEADING =
  /(?:installed versions|versions?\b|environment|system info|platform|show_versions|\.help\b|pip (?:freeze|list)|conda (?:list|info)|dependencies|setup|uname)/i;

interface LineInfo {
  start: number;
  end: number;
  text: string;
}

function splitLines(input: string): LineInfo[] {
  const out: LineInfo[] = [];
  let at = 0;
  while (at <= input.length) {
    const nl = input.indexOf('\n', at);
    const end = nl === -1 ? input.length : nl;
    out.push({ start: at, end, text: input.slice(at, end).replace(/\r$/, '') });
    if (nl === -1) break;
    at = nl + 1;
  }
  return out;
}

type LineClass = 'version' | 'kv' | 'neutral' | 'other';

function classifyLine(text: string): LineClass {
  if (text.length > MAX_ENV_LINE) return 'other';
  if (RE_NEUTRAL.test(text)) return 'neutral';
  if (RE_PACKAGE_PIN.test(text)) return 'version';
  const m = RE_KEY_VALUE.exec(text);
  if (m === null) return 'other';
  const value = m[2]!.trim();
  // `"chardet": {` opens a nested report object.
  if (value === '{' || value === '[') return 'neutral';
  if (value.length > 80) return 'other';
  if (RE_VERSION_VALUE.test(value)) return 'version';
  // Short values (`Linux`, `x86_64`, `en_US.UTF-8`, `True`) sit between versions in such reports.
  return value.split(/\s+/).length <= 6 ? 'kv' : 'other';
}

function commentBlocks(input: string): BoilerplateBlock[] {
  const out: BoilerplateBlock[] = [];
  let at = 0;
  for (;;) {
    const open = input.indexOf('<!--', at);
    if (open === -1) break;
    const close = input.indexOf('-->', open + 4);
    // An unclosed comment runs to the end, as a Markdown renderer hides it.
    const end = close === -1 ? input.length : close + 3;
    let lines = 1;
    for (let i = open; i < end; i++) if (input.charCodeAt(i) === 10) lines++;
    out.push({ kind: 'comment', start: open, end, lines });
    at = end;
  }
  return out;
}

function environmentBlocks(input: string): BoilerplateBlock[] {
  const lines = splitLines(input);
  const classes = lines.map((l) => classifyLine(l.text));
  const out: BoilerplateBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    if (classes[i] !== 'version' && classes[i] !== 'kv') {
      i++;
      continue;
    }
    // Grow a run of key/value lines, allowing short gaps of neutral lines.
    let last = i;
    let versions = 0;
    let kvs = 0;
    let gap = 0;
    let j = i;
    for (; j < lines.length; j++) {
      const c = classes[j];
      if (c === 'version' || c === 'kv') {
        if (c === 'version') versions++;
        kvs++;
        last = j;
        gap = 0;
      } else if (c === 'neutral') {
        if (++gap > MAX_NEUTRAL_GAP) break;
      } else {
        break;
      }
    }
    if (versions >= MIN_VERSION_LINES && versions / kvs >= MIN_VERSION_SHARE) {
      let first = i;
      // Take the neutral lines and up to two naming headings right above the run.
      // (`<summary>Output of show_versions()</summary>` above `INSTALLED VERSIONS` makes two.)
      for (let k = i - 1, neutral = 0, headings = 0; k >= 0; k--) {
        const t = lines[k]!.text;
        if (RE_HEADING.test(t) && t.length <= 120 && headings < 2) {
          headings++;
          first = k;
          continue;
        }
        if (classes[k] === 'neutral' && neutral < 2 * MAX_NEUTRAL_GAP) {
          neutral++;
          first = k;
          continue;
        }
        break;
      }
      // And the closing neutral lines (fences, `}`, `</details>`).
      let end = last;
      while (end + 1 < lines.length && classes[end + 1] === 'neutral' && end + 1 - last <= 4) end++;
      out.push({
        kind: 'environment',
        start: lines[first]!.start,
        end: lines[end]!.end,
        lines: end - first + 1,
      });
      i = end + 1;
    } else {
      i = Math.max(j, i + 1);
    }
  }
  return out;
}

const RE_TASK_LINE = /^\s*[-*+]\s+\[[ xX]\]\s/;

function checklistBlocks(input: string): BoilerplateBlock[] {
  const lines = splitLines(input);
  const out: BoilerplateBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!RE_TASK_LINE.test(lines[i]!.text)) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < lines.length && RE_TASK_LINE.test(lines[j + 1]!.text)) j++;
    if (j > i) {
      out.push({ kind: 'checklist', start: lines[i]!.start, end: lines[j]!.end, lines: j - i + 1 });
    }
    i = j + 1;
  }
  return out;
}

/** Runs of lines that repeat a line of the repository's templates. */
function templateBlocks(input: string, template: ReadonlySet<string>): BoilerplateBlock[] {
  if (template.size === 0) return [];
  const lines = splitLines(input);
  const out: BoilerplateBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!template.has(normalizeTemplateLine(lines[i]!.text))) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < lines.length && template.has(normalizeTemplateLine(lines[j + 1]!.text))) j++;
    out.push({ kind: 'template', start: lines[i]!.start, end: lines[j]!.end, lines: j - i + 1 });
    i = j + 1;
  }
  return out;
}

/**
 * The boilerplate blocks of `input`, in order, not overlapping. `template`:
 * the normalized lines of the repository's issue and PR templates
 * (templates.ts templateLines), if known.
 */
export function findBoilerplate(
  input: string,
  template: ReadonlySet<string> = new Set(),
): BoilerplateBlock[] {
  if (typeof input !== 'string' || input.length === 0) return [];
  const all = [
    ...commentBlocks(input),
    ...environmentBlocks(input),
    ...checklistBlocks(input),
    ...templateBlocks(input, template),
  ].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: BoilerplateBlock[] = [];
  for (const b of all) {
    const prev = out[out.length - 1];
    if (prev !== undefined && b.start < prev.end) {
      // Overlap (a comment inside an environment block): keep the union, first kind wins.
      if (b.end > prev.end) prev.end = b.end;
      continue;
    }
    out.push({ ...b });
  }
  return out;
}

export interface StrippedQuery {
  /** The input without its boilerplate blocks (the input itself when none). */
  text: string;
  removed: BoilerplateBlock[];
  /** Characters removed. */
  removedChars: number;
}

/**
 * The input with its boilerplate blocks cut out (each replaced by one
 * newline, so the words around it stay apart). When nothing but
 * boilerplate is left, the input is returned unchanged: a query that is
 * only a version report is still what the user asked.
 */
export function stripBoilerplate(
  input: string,
  template: ReadonlySet<string> = new Set(),
): StrippedQuery {
  const text = typeof input === 'string' ? input : String(input ?? '');
  const blocks = findBoilerplate(text, template);
  if (blocks.length === 0) return { text, removed: [], removedChars: 0 };
  const pieces: string[] = [];
  let at = 0;
  for (const b of blocks) {
    pieces.push(text.slice(at, b.start));
    at = b.end;
  }
  pieces.push(text.slice(at));
  const out = pieces.join('\n').replace(/\n{3,}/g, '\n\n');
  if (out.trim() === '') return { text, removed: [], removedChars: 0 };
  const removedChars = blocks.reduce((n, b) => n + (b.end - b.start), 0);
  return { text: out, removed: blocks, removedChars };
}

/** Whether offset `at` of the input lies inside one of `blocks` (sorted, as findBoilerplate gives them). */
export function insideBoilerplate(blocks: readonly BoilerplateBlock[], at: number): boolean {
  let lo = 0;
  let hi = blocks.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = blocks[mid]!;
    if (at < b.start) hi = mid - 1;
    else if (at >= b.end) lo = mid + 1;
    else return true;
  }
  return false;
}
