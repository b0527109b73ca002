import path from 'node:path';
import { CodesiftError } from '@codesift/core';

/**
 * Languages codesift knows by name. Those with a tree-sitter grammar get
 * structural chunking; the rest get markdown or line-window chunking.
 * `.h` is C here; the chunker reads the text and treats C++ headers as C++.
 */
const BY_EXTENSION: Record<string, string> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.md': 'markdown',
  '.mdx': 'markdown',
  '.markdown': 'markdown',
  '.rst': 'rst',
  '.txt': 'text',
  '.c': 'c',
  '.h': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.c++': 'cpp',
  '.hh': 'cpp',
  '.hpp': 'cpp',
  '.hxx': 'cpp',
  '.cs': 'csharp',
  '.rb': 'ruby',
  '.rake': 'ruby',
  '.gemspec': 'ruby',
  '.php': 'php',
  '.kt': 'kotlin',
  '.kts': 'kotlin',
  '.swift': 'swift',
  '.scala': 'scala',
  '.sc': 'scala',
  '.sh': 'shell',
  '.bash': 'shell',
  '.zsh': 'shell',
  '.bats': 'shell',
  '.lua': 'lua',
  '.sql': 'sql',
  '.proto': 'protobuf',
  '.json': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.toml': 'toml',
  '.tf': 'hcl',
  '.tfvars': 'hcl',
  '.hcl': 'hcl',
  '.ini': 'ini',
  '.cfg': 'ini',
  '.html': 'html',
  '.css': 'css',
  '.scss': 'css',
  '.vue': 'vue',
  '.svelte': 'svelte',
};

const BY_BASENAME: Record<string, string> = {
  Dockerfile: 'dockerfile',
  Makefile: 'make',
  'CMakeLists.txt': 'cmake',
  'go.mod': 'gomod',
  Rakefile: 'ruby',
  Gemfile: 'ruby',
};

/** Language id for a path, from its extension or well-known file name; 'text' otherwise. */
export function detectLanguage(filePath: string): string {
  const base = path.posix.basename(filePath);
  const byName = BY_BASENAME[base];
  if (byName) return byName;
  const ext = path.posix.extname(base).toLowerCase();
  return BY_EXTENSION[ext] ?? 'text';
}

/**
 * What users type for a language (`--lang`, `lang:` in a query, MCP
 * `language`) besides the ids themselves: the one table every entry point
 * resolves through (resolveLanguage).
 */
const LANGUAGE_ALIASES: Readonly<Record<string, string>> = {
  py: 'python',
  python3: 'python',
  ts: 'typescript',
  js: 'javascript',
  node: 'javascript',
  jsx: 'javascript',
  golang: 'go',
  rs: 'rust',
  kt: 'kotlin',
  'c++': 'cpp',
  cxx: 'cpp',
  'c#': 'csharp',
  cs: 'csharp',
  rb: 'ruby',
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  md: 'markdown',
  yml: 'yaml',
  proto: 'protobuf',
  terraform: 'hcl',
  tf: 'hcl',
  makefile: 'make',
  docker: 'dockerfile',
};

/** Every id detectLanguage returns, sorted: what a language filter can match. */
export const KNOWN_LANGUAGES: readonly string[] = [
  ...new Set([...Object.values(BY_EXTENSION), ...Object.values(BY_BASENAME), 'text']),
].sort();
const KNOWN = new Set(KNOWN_LANGUAGES);

/** The language id a user's spelling names (an id or an alias, any case); undefined for none. */
export function resolveLanguage(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  const id = LANGUAGE_ALIASES[v] ?? v;
  return KNOWN.has(id) ? id : undefined;
}

/** resolveLanguage, or an INVALID_ARGUMENT error that lists the known languages. */
export function checkedLanguage(value: string): string {
  const id = resolveLanguage(value);
  if (id !== undefined) return id;
  throw new CodesiftError(
    'INVALID_ARGUMENT',
    `unknown language '${value.trim()}'; known languages: ${KNOWN_LANGUAGES.join(', ')}`,
    { hint: 'aliases such as golang, py, js, ts, rs, c++, cs, rb, kt, sh are accepted too' },
  );
}
