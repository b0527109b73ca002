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

export type { DefRule, LanguageSpec } from './spec.js';
export { CONTAINER_KINDS, MEMBER_PARENT_KINDS } from './spec.js';

/**
 * Every language with structural chunking, by the language id
 * `detectLanguage` (@codesift/analysis) gives its files. Adding a language
 * is one entry here, its extensions there, and a fixture test beside it.
 *
 * Swift has no entry: tree-sitter-swift (0.5.0 to 0.7.1 checked) ships no
 * .wasm and no @tree-sitter-grammars build exists, so Swift files get line
 * windows.
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
