import type { LanguageSpec } from './spec.js';

export const python: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-python', wasm: 'tree-sitter-python.wasm' },
  defs: [
    { query: '(function_definition) @def', kind: 'function' },
    { query: '(class_definition) @def', kind: 'class' },
  ],
  wrappers: { decorated_definition: { signature: false } },
  // Decorators live inside decorated_definition; listing them lets it count as a wrapper.
  attachments: new Set(['decorator']),
  comments: new Set(['comment']),
  docstrings: true,
};
