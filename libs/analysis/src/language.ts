import path from 'node:path';

/**
 * Languages codesift knows by name. Those with a tree-sitter grammar get
 * structural chunking; the rest get markdown or line-window chunking.
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
  '.hpp': 'cpp',
  '.cs': 'csharp',
  '.rb': 'ruby',
  '.php': 'php',
  '.kt': 'kotlin',
  '.swift': 'swift',
  '.scala': 'scala',
  '.sh': 'shell',
  '.bash': 'shell',
  '.sql': 'sql',
  '.proto': 'protobuf',
  '.json': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.toml': 'toml',
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
};

/** Language id for a path, from its extension or well-known file name; 'text' otherwise. */
export function detectLanguage(filePath: string): string {
  const base = path.posix.basename(filePath);
  const byName = BY_BASENAME[base];
  if (byName) return byName;
  const ext = path.posix.extname(base).toLowerCase();
  return BY_EXTENSION[ext] ?? 'text';
}
