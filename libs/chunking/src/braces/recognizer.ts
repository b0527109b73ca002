import { docFromComments, formatSignature } from '../doc-text.js';
import { MEMBER_PARENT_KINDS } from '../languages/spec.js';
import type { SourceLines } from '../lines.js';
import type { DefNode } from '../symbols.js';
import { type CommentSpan, maskLiterals } from './mask.js';
import type { BraceDeclaration, BraceLanguage } from './spec.js';

const IDENTIFIER = /`([^`\n]+)`|([\p{L}_][\p{L}\p{N}_]*)/uy;
const OPERATOR = /[/=\-+!*%<>&|^~?.]+/y;
const SPACE = /[ \t]*/y;

/**
 * Finds the declarations of a brace-language file without a syntax tree:
 * each statement at file or type level that starts (after attributes and
 * modifiers) with one of the language's declaration keywords is a
 * declaration, running to the end of its statement, body included; a type's
 * body is searched the same way for its members, other bodies are opaque.
 * Statements are found on the text with comments and literals blanked, so
 * braces match the way the compiler reads them.
 */
export function recognizeDeclarations(lines: SourceLines, language: BraceLanguage): DefNode[] {
  const masked = maskLiterals(lines.text, language.lexis);
  const recognizer = new Recognizer(lines, masked.code, masked.comments, language);
  const roots: DefNode[] = [];
  recognizer.scan(0, lines.text.length, null, roots);
  return roots;
}

/** Where a statement ends, and its first body (`{` at its top level), if any. */
interface Statement {
  /** Exclusive end: the line break, `;` or container `}` that ends it. */
  end: number;
  bodyOpen: number;
  bodyClose: number;
}

class Recognizer {
  private readonly text: string;
  /** Comments that start their line, by the line they end on (0-based). */
  private readonly ownLineComments = new Map<number, CommentSpan>();

  constructor(
    private readonly lines: SourceLines,
    private readonly code: string,
    private readonly comments: readonly CommentSpan[],
    private readonly language: BraceLanguage,
  ) {
    this.text = lines.text;
    for (const c of comments) {
      const row = this.row(c.from);
      const before = code.slice(this.rowStart(row), c.from);
      const endRow = this.row(Math.max(c.from, c.to - 1));
      const after = code.slice(c.to, this.lineEnd(c.to));
      if (before.trim() === '' && after.trim() === '' && !this.ownLineComments.has(endRow)) {
        this.ownLineComments.set(endRow, c);
      }
    }
  }

  /** Collects the declarations among the statements of [from, to) into `out`. */
  scan(from: number, to: number, parent: DefNode | null, out: DefNode[]): void {
    const { code, language } = this;
    let pos = from;
    for (;;) {
      pos = this.skip(pos, to, /[\s;]/);
      if (pos >= to) return;
      // A stray closer (unbalanced code around `#if` branches) ends nothing here.
      if ('})]'.includes(code[pos]!)) {
        pos++;
        continue;
      }
      if (this.isDirective(pos)) {
        pos = this.lineEnd(pos);
        continue;
      }
      const start = pos;
      const head = this.skipModifiers(this.skipAttributes(pos, to), to);
      const word = this.identifierAt(head);
      const decl = word && Object.hasOwn(language.declarations, word) ? word : null;
      const stmt = this.statement(head, to);
      const rule = decl ? language.declarations[decl]! : null;
      const isMember = parent !== null && MEMBER_PARENT_KINDS.has(parent.kind);
      if (decl && rule && (!rule.memberOnly || isMember)) {
        const def = this.describe(start, head, decl, rule, stmt, parent);
        if (def) {
          out.push(def);
          if (rule.members && stmt.bodyOpen >= 0) {
            this.scan(stmt.bodyOpen + 1, stmt.bodyClose, def, def.children);
          }
        }
      }
      pos = Math.max(stmt.end, head + 1);
    }
  }

  private describe(
    start: number,
    head: number,
    keyword: string,
    rule: BraceDeclaration,
    stmt: Statement,
    parent: DefNode | null,
  ): DefNode | null {
    const named = this.nameAfter(head + keyword.length, keyword, rule);
    if (!named) return null;
    const scope = [parent?.qualifiedName, ...named.scope].filter((s): s is string => !!s);
    const kind =
      parent && MEMBER_PARENT_KINDS.has(parent.kind) && rule.memberKind
        ? rule.memberKind
        : rule.kind;
    const declRow = this.row(start);
    const { doc, topRow } = this.docAbove(declRow);
    const headerEnd = stmt.bodyOpen >= 0 ? stmt.bodyOpen : stmt.end;
    return {
      name: named.name,
      qualifiedName: [...scope, named.name].join('.'),
      parent: scope.length > 0 ? scope.join('.') : null,
      kind,
      signature: formatSignature(this.withoutComments(start, headerEnd)),
      doc,
      declStart: declRow + 1,
      chunkStart: topRow + 1,
      endLine: this.row(this.lastCodeChar(start, stmt.end)) + 1,
      spread: false,
      children: [],
    };
  }

  /** The declared name after its keyword; `scope` is a dotted name's qualifier. */
  private nameAfter(
    at: number,
    keyword: string,
    rule: BraceDeclaration,
  ): { name: string; scope: string[] } | null {
    if (rule.name === 'keyword') return { name: keyword, scope: [] };
    SPACE.lastIndex = at;
    SPACE.exec(this.code);
    let i = SPACE.lastIndex;
    const parts: string[] = [];
    for (;;) {
      IDENTIFIER.lastIndex = i;
      const m = IDENTIFIER.exec(this.code);
      if (!m) break;
      parts.push(m[1] ?? m[2]!);
      i = IDENTIFIER.lastIndex;
      if (rule.name !== 'dotted' || this.code[i] !== '.') break;
      i++;
    }
    if (parts.length === 0 && rule.name === 'operator') {
      OPERATOR.lastIndex = i;
      const op = OPERATOR.exec(this.code);
      if (op) parts.push(op[0]);
    }
    const name = parts.pop();
    return name ? { name, scope: parts } : null;
  }

  /**
   * Where the statement starting at `at` ends: at a line break, a `;` or an
   * unmatched `}` outside every bracket, unless the line or the next one says
   * the statement goes on (a multi-line signature, a `where` clause, an
   * opening brace on its own line).
   */
  private statement(at: number, to: number): Statement {
    const { code } = this;
    let parens = 0;
    let braces = 0;
    let bodyOpen = -1;
    let bodyClose = -1;
    for (let i = at; i < to; i++) {
      const c = code[i];
      if (c === '(' || c === '[') parens++;
      else if (c === ')' || c === ']') parens = Math.max(0, parens - 1);
      else if (c === '{') {
        if (parens === 0 && braces === 0 && bodyOpen < 0) bodyOpen = i;
        braces++;
      } else if (c === '}') {
        if (braces === 0) return { end: i, bodyOpen, bodyClose };
        braces--;
        if (braces === 0 && bodyOpen >= 0 && bodyClose < 0) bodyClose = i;
      } else if (parens === 0 && braces === 0) {
        if (c === ';') return { end: i + 1, bodyOpen, bodyClose };
        if (c === '\n' && !this.continues(i, to)) return { end: i, bodyOpen, bodyClose };
      }
    }
    // A body left open (unbalanced braces) runs to the end of its container.
    if (bodyOpen >= 0 && bodyClose < 0) bodyClose = to;
    return { end: to, bodyOpen, bodyClose };
  }

  /** Whether the statement goes on past the line break at `nl`. */
  private continues(nl: number, to: number): boolean {
    const line = this.code.slice(this.rowStart(this.row(nl)), nl).trimEnd();
    if (this.language.continuesAfter.test(line)) return true;
    const next = this.skip(nl, to, /\s/);
    if (next >= to) return false;
    return this.language.continuesWith.test(this.code.slice(next, this.lineEnd(next)));
  }

  private skipAttributes(at: number, to: number): number {
    const prefix = this.language.attributePrefix;
    let i = at;
    while (prefix && this.code.startsWith(prefix, i)) {
      const name = this.identifierAt(i + prefix.length);
      if (!name) break;
      i += prefix.length + name.length;
      while (this.code[i] === '.' && this.identifierAt(i + 1)) {
        i += 1 + this.identifierAt(i + 1)!.length;
      }
      i = this.skipArguments(i, to);
      i = this.skip(i, to, /\s/);
    }
    return i;
  }

  /**
   * Skips modifiers. A word that is both a modifier and a declaration
   * keyword (Swift's `class`) is a modifier only when another modifier or
   * keyword follows it (`class func`).
   */
  private skipModifiers(at: number, to: number): number {
    const { modifiers, declarations } = this.language;
    let i = at;
    for (;;) {
      const word = this.identifierAt(i);
      if (!word || !modifiers.has(word)) return i;
      const after = this.skip(this.skipArguments(i + word.length, to), to, /[ \t]/);
      if (Object.hasOwn(declarations, word)) {
        const next = this.identifierAt(after);
        if (!next || !(modifiers.has(next) || Object.hasOwn(declarations, next))) return i;
      }
      i = this.skip(after, to, /\s/);
    }
  }

  /** Skips a parenthesized argument list right after `at` (`@available(...)`, `private(set)`). */
  private skipArguments(at: number, to: number): number {
    if (this.code[at] !== '(') return at;
    let depth = 0;
    for (let i = at; i < to; i++) {
      if (this.code[i] === '(') depth++;
      else if (this.code[i] === ')' && --depth === 0) return i + 1;
    }
    return to;
  }

  private identifierAt(at: number): string | null {
    IDENTIFIER.lastIndex = at;
    const m = IDENTIFIER.exec(this.code);
    return m ? m[0] : null;
  }

  private isDirective(at: number): boolean {
    const directives = this.language.directives;
    if (!directives) return false;
    const word = /^#\w+/.exec(this.code.slice(at, at + 32));
    return word !== null && directives.has(word[0]);
  }

  /** The run of own-line comments directly above row `declRow` (no blank line between). */
  private docAbove(declRow: number): { doc: string; topRow: number } {
    const raws: string[] = [];
    let topRow = declRow;
    for (
      let c = this.ownLineComments.get(topRow - 1);
      c;
      c = this.ownLineComments.get(topRow - 1)
    ) {
      raws.push(this.text.slice(c.from, c.to));
      topRow = this.row(c.from);
    }
    raws.reverse();
    return { doc: docFromComments(raws), topRow };
  }

  /** Source text of [from, to) with its comments blanked (literals kept: they are the signature's). */
  private withoutComments(from: number, to: number): string {
    let out = '';
    let at = from;
    for (const c of this.comments) {
      if (c.to <= from || c.from >= to) continue;
      out += `${this.text.slice(at, Math.max(at, c.from))} `;
      at = Math.min(to, c.to);
    }
    return out + this.text.slice(at, to);
  }

  private lastCodeChar(from: number, end: number): number {
    let i = end - 1;
    while (i > from && /\s/.test(this.text[i]!)) i--;
    return i;
  }

  private skip(at: number, to: number, what: RegExp): number {
    let i = at;
    while (i < to && what.test(this.code[i]!)) i++;
    return i;
  }

  private lineEnd(at: number): number {
    const nl = this.code.indexOf('\n', at);
    return nl < 0 ? this.code.length : nl;
  }

  /** 0-based row of an offset. */
  private row(offset: number): number {
    return this.lines.lineOf(offset) - 1;
  }

  /** Offset where a 0-based row starts. */
  private rowStart(row: number): number {
    return this.lines.startOf(row + 1);
  }
}
