import type { LanguageSpec } from './spec.js';

const CLASS_BODY = ['class_body|enum_class_body'];

/**
 * tree-sitter-kotlin (fwcd) ships no .wasm; the @tree-sitter-grammars build
 * does. It has no tags query either, so these rules are our own.
 */
export const kotlin: LanguageSpec = {
  grammar: { pkg: '@tree-sitter-grammars/tree-sitter-kotlin', wasm: 'tree-sitter-kotlin.wasm' },
  defs: [
    {
      query: '(class_declaration) @def',
      kind: 'class',
      kindByChild: { interface: 'interface', enum_class_body: 'enum' },
      body: CLASS_BODY,
    },
    { query: '(object_declaration) @def', kind: 'class', body: CLASS_BODY },
    { query: '(function_declaration) @def', kind: 'function', body: ['function_body'] },
    { query: '(type_alias) @def', kind: 'type', nameFields: ['type'], body: [] },
  ],
  wrappers: {},
  attachments: new Set(),
  comments: new Set(['line_comment', 'block_comment']),
};
