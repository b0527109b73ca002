import type { LanguageSpec } from './spec.js';

export const shell: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-bash', wasm: 'tree-sitter-bash.wasm' },
  defs: [{ query: '(function_definition) @def', kind: 'function' }],
  wrappers: {},
  attachments: new Set(),
  comments: new Set(['comment']),
};
