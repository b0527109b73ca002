import type { TermShape } from '../types.js';

/**
 * Extensions that make a slash-less token like `walk.ts` a file name rather
 * than a qualified name. Source and config formats only: `.cfg`, `.log`,
 * `.get` and friends would turn `self.cfg` or `console.log` into paths.
 */
const FILE_EXTENSIONS: ReadonlySet<string> = new Set([
  'c',
  'cc',
  'cjs',
  'cpp',
  'cs',
  'css',
  'cts',
  'go',
  'gradle',
  'h',
  'hpp',
  'html',
  'java',
  'js',
  'json',
  'jsx',
  'kt',
  'lock',
  'md',
  'mdx',
  'mjs',
  'mts',
  'php',
  'proto',
  'py',
  'pyi',
  'rb',
  'rs',
  'scala',
  'scss',
  'sh',
  'sql',
  'svelte',
  'swift',
  'toml',
  'ts',
  'tsx',
  'txt',
  'vue',
  'xml',
  'yaml',
  'yml',
]);

export interface Classified {
  shape: TermShape;
  /** The value to search: a path without its `:line:col`. */
  value: string;
  line?: number;
  column?: number;
}

const RE_LINE_SUFFIX = /:(\d{1,9})(?::(\d{1,9}))?$/;
/** A qualified name: `a.b`, `a::b`, Ruby's `A#b`, member access `$a->b` (PHP, C++). */
const RE_DOTTED = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)+$/;
/** Ruby's predicate and bang methods end in `?` and `!` (the tokenizer keeps the suffix only on names). */
const RE_NAME_SUFFIX = /[\w$][?!]$/;
const RE_NUMBER = /^(?:\d+(?:[.,_-]\d+)*|0[xX][0-9a-fA-F]+|[vV]\d+(?:\.\d+)+)$/;
const RE_UPPER_CODE = /^[A-Z][A-Z0-9]*(?:[-_.][A-Z0-9]+)*$/;
const RE_SCREAMING = /^_*[A-Z][A-Z0-9]*(?:_+[A-Z0-9]+)+_*$/;
const RE_SNAKE = /^_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)*_*$/;
const RE_KEBAB = /^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+$/;
const RE_CAMEL = /^[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*$/;
const RE_PASCAL = /^[A-Z][A-Za-z0-9]*$/;
const RE_ACRONYM = /^[A-Z]{2,}$/;
const RE_ALNUM = /^[A-Za-z0-9]+$/;
const RE_HAS_DIGIT = /\d/;
const RE_HAS_LETTER = /[A-Za-z]/;
const RE_HAS_LOWER = /[a-z]/;
const RE_TWO_UPPER = /[A-Z][^A-Z]*[A-Z]/;
const RE_ABBREVIATION = /^(?:[A-Za-z]\.)+[A-Za-z]?$/;
const RE_DRIVE = /^[A-Za-z]:[\\/]/;

/**
 * Whether `a/b` is prose ("and/or", "read/write") rather than a path: one
 * slash between two plain lowercase words and no extension. Paths like
 * `src/scanner` lose their path shape to this rule, but keep their terms.
 */
function isSlashedProse(token: string): boolean {
  const slash = token.indexOf('/');
  if (slash <= 0 || slash !== token.lastIndexOf('/') || slash === token.length - 1) return false;
  return /^[a-z]+\/[a-z]+$/.test(token);
}

function extensionOf(token: string): string {
  const slash = Math.max(token.lastIndexOf('/'), token.lastIndexOf('\\'));
  const base = token.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/**
 * Classifies one token (already trimmed of edge punctuation and free of
 * whitespace). Checks run from the most specific shape to the least, so a
 * token gets exactly one shape. Pure and regex-light: every pattern is
 * anchored and free of nested quantifiers, so it runs in linear time.
 */
export function classifyToken(token: string): Classified {
  if (RE_NAME_SUFFIX.test(token)) {
    // `empty?` is the name `empty?` whatever shape its stem has: an identifier, never prose.
    const stem = classifyToken(token.slice(0, -1)).shape;
    return { shape: stem === 'word' || stem === 'acronym' ? 'snake' : stem, value: token };
  }
  // Fast path for prose, the commonest token: letters only, at most the first one upper case.
  let plain = true;
  let hasPunct = false;
  for (let k = 0; k < token.length; k++) {
    const c = token.charCodeAt(k);
    if (c >= 97 && c <= 122) continue;
    if (c >= 65 && c <= 90) {
      if (k > 0) plain = false;
      continue;
    }
    plain = false;
    if (c < 128 && !(c >= 48 && c <= 57)) hasPunct = true;
  }
  if (plain && token.length > 0) {
    return { shape: 'word', value: token };
  }
  if (!hasPunct) return classifyWordLike(token);
  if (token.includes('://')) return { shape: 'url', value: token };
  const hasSlash = token.includes('/') || token.includes('\\');
  let bare = token;
  let line: number | undefined;
  let column: number | undefined;
  const m = RE_LINE_SUFFIX.exec(token);
  if (m && m.index > 0) {
    bare = token.slice(0, m.index);
    line = Number(m[1]);
    if (m[2] !== undefined) column = Number(m[2]);
  }
  const ext = extensionOf(bare);
  const isPath =
    (hasSlash && !isSlashedProse(bare)) ||
    // Dotfiles: `.env`, `.gitignore` (the tokenizer keeps one leading dot only before a letter).
    (bare.length > 1 && bare.charCodeAt(0) === 46 && bare.charCodeAt(1) !== 46) ||
    RE_DRIVE.test(bare) ||
    (ext !== '' &&
      FILE_EXTENSIONS.has(ext) &&
      !RE_NUMBER.test(bare) &&
      // `U.S.C` is an abbreviation, not a C file; `a.c` stays a file.
      !(RE_ABBREVIATION.test(bare) && bare.indexOf('.') !== bare.lastIndexOf('.')));
  if (isPath) {
    const out: Classified = { shape: 'path', value: bare };
    if (line !== undefined) out.line = line;
    if (column !== undefined) out.column = column;
    return out;
  }
  if (RE_ABBREVIATION.test(token)) {
    // `e.g`, `i.e`, `U.S.C`: abbreviations, not qualified names.
    return { shape: /[a-z]/.test(token) ? 'word' : 'acronym', value: token };
  }
  if (RE_DOTTED.test(token)) return { shape: 'dotted', value: token };
  return classifyWordLike(token);
}

/** Shapes of a token that is not a path, URL or qualified name. */
function classifyWordLike(token: string): Classified {
  if (RE_NUMBER.test(token)) return { shape: 'number', value: token };
  const hasDigit = RE_HAS_DIGIT.test(token);
  if (hasDigit && RE_HAS_LETTER.test(token) && RE_UPPER_CODE.test(token)) {
    return { shape: 'code', value: token };
  }
  if (RE_SCREAMING.test(token)) return { shape: 'screaming', value: token };
  if (token.includes('_') && RE_SNAKE.test(token)) return { shape: 'snake', value: token };
  if (RE_KEBAB.test(token)) return { shape: 'kebab', value: token };
  if (RE_CAMEL.test(token)) return { shape: 'camel', value: token };
  if (RE_PASCAL.test(token) && RE_HAS_LOWER.test(token) && RE_TWO_UPPER.test(token)) {
    return { shape: 'pascal', value: token };
  }
  if (RE_ACRONYM.test(token)) return { shape: 'acronym', value: token };
  if (hasDigit && RE_ALNUM.test(token)) return { shape: 'code', value: token };
  if (token.includes('$') || token.includes('_')) return { shape: 'snake', value: token };
  return { shape: 'word', value: token };
}

/**
 * Shapes that name something in code exactly. Queries made only of these
 * skip the vector side; terms of these shapes are boosting anchors.
 */
export const IDENTIFIER_SHAPES: ReadonlySet<TermShape> = new Set<TermShape>([
  'code',
  'path',
  'dotted',
  'call',
  'camel',
  'pascal',
  'snake',
  'screaming',
]);
