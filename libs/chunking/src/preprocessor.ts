import type { Node } from 'web-tree-sitter';

/**
 * Text for a second parse of a C or C++ file whose first parse had errors.
 *
 * Tree-sitter parses C without running the preprocessor, and two things real
 * C code is full of can make one function swallow the rest of the file:
 *
 * - macros it cannot know in declarations (`int ZEXPORT f(...)`, `local int
 *   f(...)`, `void FAR *p`): each is a one-word ERROR node;
 * - conditionals that split a statement (`if (` in one `#ifdef` branch and
 *   `if (!x ||` in the `#else`): the braces no longer balance, the body never
 *   closes, and every later definition is lost inside it.
 *
 * The second parse sees those one-word errors blanked, and of every
 * `#if`/`#ifdef` only its first branch (the directive lines and the other
 * branches blanked), which is what a compiler with the macros defined would
 * mostly see. Blanking keeps every character's offset and every line, so the
 * tree's positions still address the original text, which is what chunks,
 * names and signatures are read from. Null when there is nothing to blank.
 */
export function recoveryText(text: string, root: Node): string | null {
  const spans: [number, number][] = [];
  collectStrayWords(root, text, spans);
  collectConditionalBranches(text, spans);
  if (spans.length === 0) return null;
  const chars = text.split('');
  for (const [from, to] of spans) {
    for (let i = from; i < to; i++) if (chars[i] !== '\n') chars[i] = ' ';
  }
  return chars.join('');
}

const WORD = /^[A-Za-z_]\w*$/;

/** ERROR nodes that are one identifier or keyword: an unknown macro, or the type word it displaced. */
function collectStrayWords(node: Node, text: string, out: [number, number][]): void {
  if (node.type === 'ERROR' && WORD.test(text.slice(node.startIndex, node.endIndex))) {
    out.push([node.startIndex, node.endIndex]);
    return;
  }
  if (!node.hasError) return;
  for (const child of node.children) collectStrayWords(child, text, out);
}

const DIRECTIVE = /^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b/;

/**
 * Conditional directive lines, and every line of a branch after a
 * conditional's first (`#elif`, `#else` up to its `#endif`), nested
 * conditionals included. Continuation lines (`\` at the end) belong to
 * their directive.
 */
function collectConditionalBranches(text: string, out: [number, number][]): void {
  // One entry per open conditional: true once it is past its first branch.
  const open: boolean[] = [];
  let pos = 0;
  let continued = false;
  let blankingContinuation = false;
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(pos, end);
    const ends = line.endsWith('\\');
    if (continued) {
      if (blankingContinuation || open.includes(true)) out.push([pos, end]);
    } else {
      const m = DIRECTIVE.exec(line);
      const word = m?.[1];
      if (word === 'if' || word === 'ifdef' || word === 'ifndef') open.push(false);
      else if (word === 'endif') open.pop();
      else if (word !== undefined && open.length > 0) open[open.length - 1] = true;
      blankingContinuation = word !== undefined;
      // A directive line goes, and so does any line inside a later branch.
      if (word !== undefined || open.includes(true)) out.push([pos, end]);
    }
    continued = ends;
    pos = end + 1;
  }
}
