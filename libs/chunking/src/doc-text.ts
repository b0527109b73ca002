/** Bounds keep one pathological declaration from bloating every chunk of a split unit. */
export const MAX_SIGNATURE_CHARS = 200;
export const MAX_DOC_CHARS = 2000;

function bound(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  const c = text.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut--;
  return `${text.slice(0, cut)}…`;
}

/** Drops leading `@decorator(...)` / `@Annotation` tokens so the signature starts at the declaration. */
export function stripDecorators(text: string): string {
  let s = text.trimStart();
  while (s.startsWith('@')) {
    const name = /^@[\w$.]*/.exec(s);
    let i = name ? name[0].length : 1;
    if (s[i] === '(') {
      let depth = 0;
      for (; i < s.length; i++) {
        if (s[i] === '(') depth++;
        else if (s[i] === ')' && --depth === 0) {
          i++;
          break;
        }
      }
    }
    const rest = s.slice(i).trimStart();
    if (rest.length === 0 || rest.length === s.length) break;
    s = rest;
  }
  return s;
}

/** Declaration header text -> one bounded line, without the body opener. */
export function formatSignature(header: string): string {
  const sig = stripDecorators(header)
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\s*[{:;=]$/, '');
  return bound(sig, MAX_SIGNATURE_CHARS);
}

function trimBlankEdges(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]!.trim() === '') a++;
  while (b > a && lines[b - 1]!.trim() === '') b--;
  return lines.slice(a, b);
}

/** Comment text without its markers: `/** *\/`, `*` gutters, `//`, `///`, `//!`, `#`, Lua's `--` and `--[[ ]]`. */
export function cleanComment(raw: string): string {
  const text = raw.replace(/\r/g, '');
  let lines: string[];
  if (/^--\[=*\[/.test(text)) {
    const [first = '', ...rest] = text
      .replace(/^--\[=*\[/, '')
      .replace(/\]=*\]$/, '')
      .split('\n')
      .map((l) => l.trimEnd());
    // The text starts beside `--[[`; later lines keep their own indentation.
    lines = [first.trim(), ...dedent(rest)];
  } else if (text.startsWith('/*')) {
    lines = text
      .replace(/^\/\*+!?/, '')
      .replace(/\*+\/$/, '')
      .split('\n')
      .map((l) => l.replace(/^\s*\*(?!\/) ?/, '').trimEnd());
  } else {
    lines = text.split('\n').map((l) => l.replace(/^\s*(?:\/\/[/!]?|#|--+) ?/, '').trimEnd());
  }
  return dedent(trimBlankEdges(lines)).join('\n');
}

function dedent(lines: string[]): string[] {
  let indent = Number.POSITIVE_INFINITY;
  for (const l of lines) {
    if (l.trim() !== '') indent = Math.min(indent, l.length - l.trimStart().length);
  }
  return Number.isFinite(indent) && indent > 0 ? lines.map((l) => l.slice(indent)) : lines;
}

/** Joins a run of comments into one doc string. */
export function docFromComments(raws: readonly string[]): string {
  // Empty comment lines inside a run are paragraph breaks (`///` in Rust).
  return bound(trimBlankEdges(raws.map(cleanComment)).join('\n'), MAX_DOC_CHARS);
}

/**
 * C# XML doc -> its text: `<see cref="X"/>` becomes `X`, other tags
 * (`<summary>`, `<param name="x">`) are dropped, their text kept.
 */
export function stripXmlTags(doc: string): string {
  const text = doc
    .replace(/<(?:see|seealso|paramref|typeparamref)\s+\w+="([^"]*)"\s*\/>/g, '$1')
    .replace(/<\/?[A-Za-z][^>]*>/g, '');
  return trimBlankEdges(text.split('\n').map((l) => l.trim())).join('\n');
}

/** Python docstring literal -> its text, dedented like inspect.cleandoc. */
export function cleanDocstring(raw: string): string {
  const m = /^[rRuUbBfF]*("""|'''|"|')([\s\S]*?)\1?$/.exec(raw.replace(/\r/g, ''));
  let body = m ? m[2]! : raw;
  const quote = m?.[1];
  if (quote && body.endsWith(quote)) body = body.slice(0, -quote.length);
  const lines = body.split('\n');
  let indent = Number.POSITIVE_INFINITY;
  for (const l of lines.slice(1)) {
    if (l.trim() === '') continue;
    indent = Math.min(indent, l.length - l.trimStart().length);
  }
  const dedented = lines.map((l, i) =>
    i === 0 ? l.trim() : Number.isFinite(indent) ? l.slice(indent).trimEnd() : l.trim(),
  );
  return bound(trimBlankEdges(dedented).join('\n'), MAX_DOC_CHARS);
}
