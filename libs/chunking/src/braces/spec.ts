import type { UnitKind } from '@codesift/core';

/**
 * A string or character literal form. Forms are tried in table order, so a
 * longer opener (`"""`) must come before its prefix (`"`).
 */
export interface StringForm {
  open: string;
  close: string;
  /** May span lines; a single-line form left open ends at the line's end. */
  multiline: boolean;
  /** Escape character (`\`): the character after it never closes the literal. */
  escape?: string;
  /**
   * Code embedded after the escape (`(` for Swift's `\(expr)`): it runs to the
   * matching `)` and may hold strings of its own, whose quotes do not close
   * this one.
   */
  interpolation?: string;
}

/** How comments and literals are written: what the brace matcher must not read as code. */
export interface BraceLexis {
  lineComments: readonly string[];
  blockComment?: { open: string; close: string; nests: boolean };
  strings: readonly StringForm[];
  /**
   * Raw-string delimiter (Swift's `#`): n of them before a string's opener
   * need n after its closer, and its escape is the escape followed by n.
   */
  rawDelimiter?: string;
}

/** One declaration keyword and what it declares. */
export interface BraceDeclaration {
  kind: UnitKind;
  /** Kind inside a type whose members are methods (MEMBER_PARENT_KINDS): `func` there is a method. */
  memberKind?: UnitKind;
  /**
   * How the name is written after the keyword: an identifier (dotted for an
   * extension of a nested type), an identifier or an operator (`func ==`), or
   * none, when the keyword is the name (`init`, `subscript`).
   */
  name: 'identifier' | 'dotted' | 'operator' | 'keyword';
  /** Its body's declarations are its members (types); other bodies are opaque. */
  members?: boolean;
  /** Only a member of a type, never a top-level declaration (Swift `var`/`let`). */
  memberOnly?: boolean;
}

/**
 * A brace language without a loadable grammar, recognized from its keywords:
 * every entry here is all the recognizer knows about the language.
 */
export interface BraceLanguage {
  /** Said with every file chunked this way (why there is no grammar). */
  reason: string;
  lexis: BraceLexis;
  declarations: Readonly<Record<string, BraceDeclaration>>;
  /** Words that may precede a declaration keyword (`public`, `static`, `override`). */
  modifiers: ReadonlySet<string>;
  /** Attribute marker (`@`): `@name` and `@name(...)` before a declaration belong to it. */
  attributePrefix?: string;
  /** Compiler directives (`#if`, `#endif`) that fill a whole line and are not statements. */
  directives?: ReadonlySet<string>;
  /** A declaration goes on after a line break when the next line starts with one of these. */
  continuesWith: RegExp;
  /** ... or when its line ends with one of these. */
  continuesAfter: RegExp;
}
