import type { LanguageSpec } from './spec.js';

export const rust: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-rust', wasm: 'tree-sitter-rust.wasm' },
  defs: [
    { query: '(function_item) @def', kind: 'function' },
    { query: '(function_signature_item) @def', kind: 'function', body: [] },
    { query: '(struct_item) @def', kind: 'struct' },
    { query: '(union_item) @def', kind: 'struct' },
    { query: '(enum_item) @def', kind: 'enum' },
    { query: '(trait_item) @def', kind: 'trait' },
    { query: '(impl_item) @def', kind: 'impl', nameFields: ['type'], nameIsType: true },
    { query: '(mod_item body: (_)) @def', kind: 'module' },
    { query: '(type_item) @def', kind: 'type', body: [] },
    { query: '(macro_definition) @def', kind: 'function', body: [] },
  ],
  wrappers: {},
  attachments: new Set(['attribute_item']),
  comments: new Set(['line_comment', 'block_comment']),
};
