import type { LanguageSpec } from './spec.js';

export const scala: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-scala', wasm: 'tree-sitter-scala.wasm' },
  defs: [
    { query: '(class_definition) @def', kind: 'class' },
    { query: '(object_definition) @def', kind: 'class' },
    { query: '(trait_definition) @def', kind: 'trait' },
    { query: '(enum_definition) @def', kind: 'enum' },
    { query: '(function_definition) @def', kind: 'function' },
    { query: '(function_declaration) @def', kind: 'function', body: [] },
    { query: '(type_definition) @def', kind: 'type', body: [] },
  ],
  wrappers: {},
  attachments: new Set(['annotation']),
  comments: new Set(['comment', 'block_comment']),
};
