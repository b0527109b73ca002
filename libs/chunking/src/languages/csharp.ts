import { C_COMMENTS, type LanguageSpec } from './spec.js';

export const csharp: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-c-sharp', wasm: 'tree-sitter-c_sharp.wasm' },
  defs: [
    { query: '(namespace_declaration) @def', kind: 'module', spread: true },
    {
      query: '(file_scoped_namespace_declaration) @def',
      kind: 'module',
      spread: true,
      scopesRest: true,
      body: [],
    },
    { query: '(class_declaration) @def', kind: 'class' },
    { query: '(interface_declaration) @def', kind: 'interface' },
    { query: '(struct_declaration) @def', kind: 'struct' },
    { query: '(enum_declaration) @def', kind: 'enum' },
    { query: '(record_declaration) @def', kind: 'class' },
    { query: '(delegate_declaration) @def', kind: 'type', body: [] },
    { query: '(method_declaration) @def', kind: 'method' },
    { query: '(constructor_declaration) @def', kind: 'method' },
    { query: '(destructor_declaration) @def', kind: 'method' },
    { query: '(local_function_statement) @def', kind: 'function' },
  ],
  wrappers: {},
  attachments: new Set(['attribute_list']),
  innerAttributes: new Set(['attribute_list']),
  comments: C_COMMENTS,
  xmlDoc: true,
};
