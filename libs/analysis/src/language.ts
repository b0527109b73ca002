import path from 'node:path';

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
