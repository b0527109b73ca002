import { C_COMMENTS, type LanguageSpec } from './spec.js';

export const php: LanguageSpec = {
  // The grammar for whole .php files (HTML around `<?php`), not php_only.
  grammar: { pkg: 'tree-sitter-php', wasm: 'tree-sitter-php.wasm' },
  defs: [
    { query: '(namespace_definition body: (_)) @def', kind: 'module', spread: true },
    { query: '(class_declaration) @def', kind: 'class' },
    { query: '(interface_declaration) @def', kind: 'interface' },
    { query: '(trait_declaration) @def', kind: 'trait' },
    { query: '(enum_declaration) @def', kind: 'enum' },
    { query: '(function_definition) @def', kind: 'function' },
    { query: '(method_declaration) @def', kind: 'method' },
  ],
  wrappers: {},
  attachments: new Set(['attribute_list']),
  innerAttributes: new Set(['attribute_list']),
  comments: C_COMMENTS,
};
