import type { LanguageSpec } from './spec.js';

/**
 * tree-sitter-lua on npm (2.x) is another grammar that ships no .wasm; the
 * @tree-sitter-grammars build does.
 */
export const lua: LanguageSpec = {
  grammar: { pkg: '@tree-sitter-grammars/tree-sitter-lua', wasm: 'tree-sitter-lua.wasm' },
  defs: [
    // `function M.total()` and `function M:method()` are filed under `M`.
    { query: '(function_declaration) @def', kind: 'function', scopeSeparator: /[.:]/ },
  ],
  wrappers: {},
  attachments: new Set(),
  comments: new Set(['comment']),
};
