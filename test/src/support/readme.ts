// What README.md tells a user to type, read from the README itself: the code
// block after an `<!-- marker -->` comment, and its shell commands split into
// words, so tests run or parse exactly the published text.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './cli.js';

export function readme(): string {
  return readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
}

/** The fenced code block that follows `<!-- marker -->` (after blank lines only). */
export function markedBlock(markdown: string, marker: string): { lang: string; text: string } {
  const tag = `<!-- ${marker} -->`;
  const at = markdown.indexOf(tag);
  if (at < 0) throw new Error(`README.md has no "${tag}"`);
  const m = /^\s*```(\w*)\n([\s\S]*?)\n```/.exec(markdown.slice(at + tag.length));
  if (!m) throw new Error(`README.md: "${tag}" is not followed by a fenced code block`);
  return { lang: m[1]!, text: m[2]! };
}

/**
 * The commands of a shell block, each split into words: one command per
 * line, `&&` between commands, `#` comments dropped, quotes honoured. Pipes,
 * redirections, substitutions and variables are refused, so a snippet that
 * needs a real shell to mean what it says fails here instead of passing.
 */
export function shellCommands(block: string): string[][] {
  const commands: string[][] = [];
  for (const line of block.split('\n')) {
    let words: string[] = [];
    let word: string | null = null;
    let quote: string | null = null;
    const end = () => {
      if (word !== null) words.push(word);
      word = null;
    };
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (quote) {
        if (c === quote) quote = null;
        else word = (word ?? '') + c;
      } else if (c === "'" || c === '"') {
        quote = c;
        word ??= '';
      } else if (c === ' ' || c === '\t') {
        end();
      } else if (c === '#' && word === null) {
        break;
      } else if (c === '&' && line[i + 1] === '&' && word === null) {
        if (words.length) commands.push(words);
        words = [];
        i++;
      } else if ('|;<>$`\\'.includes(c)) {
        throw new Error(`shell syntax "${c}" in README command: ${line}`);
      } else {
        word = (word ?? '') + c;
      }
    }
    if (quote) throw new Error(`unclosed ${quote} in README command: ${line}`);
    end();
    if (words.length) commands.push(words);
  }
  return commands;
}
