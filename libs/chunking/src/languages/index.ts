import type { BraceLanguage } from '../braces/spec.js';
import { c, cpp } from './c-family.js';
import { csharp } from './csharp.js';
import { hcl, json, toml, yaml } from './data.js';
import { go } from './go.js';
import { java } from './java.js';
import { javascript, tsx, typescript } from './javascript.js';
import { kotlin } from './kotlin.js';
import { lua } from './lua.js';
import { php } from './php.js';
import { python } from './python.js';
import { ruby } from './ruby.js';
import { rust } from './rust.js';
import { scala } from './scala.js';
import { shell } from './shell.js';
import type { LanguageSpec } from './spec.js';
import { swift } from './swift.js';

export type { DefRule, LanguageSpec } from './spec.js';
export { CONTAINER_KINDS, MEMBER_PARENT_KINDS } from './spec.js';

/**
 * Every language with structural chunking, by the language id
 * `detectLanguage` (@codesift/analysis) gives its files. Adding a language
 * is one entry here, its extensions there, and a fixture test beside it.
 * A brace language that has no usable grammar goes in BRACE_LANGUAGES
 * instead (its keywords and comment and string syntax).
 */
const SPECS: Readonly<Record<string, LanguageSpec>> = {
  typescript,
  tsx,
  javascript,
  python,
  go,
  rust,
  java,
  c,
  cpp,
  csharp,
  ruby,
  php,
  kotlin,
  scala,
  shell,
  lua,
  yaml,
  json,
  toml,
  hcl,
};

/** The structural spec for a language id, or undefined when it has none. */
export function languageSpec(language: string): LanguageSpec | undefined {
  return Object.hasOwn(SPECS, language) ? SPECS[language] : undefined;
}

export const STRUCTURAL_LANGUAGES: readonly string[] = Object.keys(SPECS);

/**
 * Brace languages without a loadable grammar, read by the brace recognizer
 * (braces/recognizer.ts) from their keywords, comment and string syntax:
 * declarations, bodies, members and doc comments, but no syntax tree. Adding
 * one is one table entry; each says why it has no grammar, and every file
 * chunked this way says so (ChunkResult.structural, `codesift index --json`).
 */
const BRACE_LANGUAGES: Readonly<Record<string, BraceLanguage>> = {
  swift,
};

/** The brace recognizer's table for a language without a grammar, or undefined. */
export function braceLanguage(language: string): BraceLanguage | undefined {
  return Object.hasOwn(BRACE_LANGUAGES, language) ? BRACE_LANGUAGES[language] : undefined;
}
