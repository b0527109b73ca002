import type { LanguageSpec } from './spec.js';

export const ruby: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-ruby', wasm: 'tree-sitter-ruby.wasm' },
  defs: [
    { query: '(class) @def', kind: 'class', oneLineSignature: true },
    { query: '(module) @def', kind: 'module', spread: true, oneLineSignature: true },
    { query: '(method) @def', kind: 'function', oneLineSignature: true },
    { query: '(singleton_method) @def', kind: 'method', oneLineSignature: true },
  ],
  wrappers: {},
  attachments: new Set(),
  comments: new Set(['comment']),
  bodyNodes: new Set(['body_statement']),
};
