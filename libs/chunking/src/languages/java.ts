import type { LanguageSpec } from './spec.js';

export const java: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-java', wasm: 'tree-sitter-java.wasm' },
  defs: [
    { query: '(class_declaration) @def', kind: 'class' },
    { query: '(interface_declaration) @def', kind: 'interface' },
    { query: '(enum_declaration) @def', kind: 'enum' },
    { query: '(record_declaration) @def', kind: 'class' },
    { query: '(annotation_type_declaration) @def', kind: 'interface' },
    { query: '(method_declaration) @def', kind: 'method' },
    { query: '(constructor_declaration) @def', kind: 'method' },
  ],
  wrappers: {},
  attachments: new Set(),
  comments: new Set(['line_comment', 'block_comment']),
};
