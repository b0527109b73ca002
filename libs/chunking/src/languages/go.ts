import type { LanguageSpec } from './spec.js';

export const go: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-go', wasm: 'tree-sitter-go.wasm' },
  defs: [
    { query: '(function_declaration) @def', kind: 'function' },
    { query: '(method_declaration) @def', kind: 'method', receiverField: 'receiver' },
    {
      query: '(type_spec) @def',
      kind: 'type',
      kindByField: {
        field: 'type',
        kinds: { struct_type: 'struct', interface_type: 'interface' },
      },
      body: ['type', 'field_declaration_list'],
    },
    { query: '(type_alias) @def', kind: 'type', body: [] },
    { query: '(method_elem) @def', kind: 'method', body: [] },
  ],
  wrappers: { type_declaration: { signature: true } },
  attachments: new Set(),
  comments: new Set(['comment']),
};
