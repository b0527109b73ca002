import { C_COMMENTS, type DefRule, type LanguageSpec } from './spec.js';

/** A prototype: `int f(void);`, `char *f(void);` (the name sits under nested declarators). */
const C_PROTOTYPE =
  '[(function_declarator) (pointer_declarator declarator: (function_declarator))]';
/** C++ adds `T& f();`. */
const CPP_PROTOTYPE =
  '[(function_declarator) (pointer_declarator declarator: (function_declarator)) (reference_declarator (function_declarator))]';

const C_NAME = { nameFields: ['declarator'], nameDescend: 'declarator' } as const;

const C_DEFS: readonly DefRule[] = [
  { query: '(function_definition) @def', kind: 'function', ...C_NAME },
  {
    query: `(declaration declarator: ${C_PROTOTYPE}) @def`,
    kind: 'function',
    ...C_NAME,
    body: [],
  },
  { query: '(struct_specifier name: (_) body: (_)) @def', kind: 'struct' },
  { query: '(union_specifier name: (_) body: (_)) @def', kind: 'struct' },
  { query: '(enum_specifier name: (_) body: (_)) @def', kind: 'enum' },
  { query: '(type_definition) @def', kind: 'type', ...C_NAME, body: [] },
  { query: '(preproc_function_def) @def', kind: 'function', body: [] },
];

const CPP_DEFS: readonly DefRule[] = [
  {
    query: '(function_definition) @def',
    kind: 'function',
    ...C_NAME,
    scopeSeparator: /::/,
    scopedKind: 'method',
  },
  {
    query: `(declaration declarator: ${CPP_PROTOTYPE}) @def`,
    kind: 'function',
    ...C_NAME,
    body: [],
  },
  {
    query: `(field_declaration declarator: ${CPP_PROTOTYPE}) @def`,
    kind: 'method',
    ...C_NAME,
    body: [],
  },
  { query: '(class_specifier name: (_) body: (_)) @def', kind: 'class' },
  { query: '(struct_specifier name: (_) body: (_)) @def', kind: 'struct' },
  { query: '(union_specifier name: (_) body: (_)) @def', kind: 'struct' },
  { query: '(enum_specifier name: (_) body: (_)) @def', kind: 'enum' },
  { query: '(namespace_definition name: (_)) @def', kind: 'module', spread: true },
  { query: '(type_definition) @def', kind: 'type', ...C_NAME, body: [] },
  { query: '(alias_declaration) @def', kind: 'type', body: [] },
  { query: '(concept_definition) @def', kind: 'type', body: [] },
  { query: '(preproc_function_def) @def', kind: 'function', body: [] },
];

/**
 * Words and shapes only C++ has. A `.h` file is C unless it shows one of
 * them outside comments and strings would matter; a plain substring test is
 * enough because a C header using these words is vanishingly rare.
 */
const CPP_MARKERS =
  /^\s*(?:class|namespace|template\s*<|using\s+namespace|public:|private:|protected:)|\w::\w|#include\s*<(?:string|vector|memory|map|iostream|functional|optional)>/m;

export const c: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-c', wasm: 'tree-sitter-c.wasm' },
  defs: C_DEFS,
  wrappers: {},
  attachments: new Set(),
  comments: C_COMMENTS,
  preprocessor: true,
  refineLanguage: (path, text) =>
    path.toLowerCase().endsWith('.h') && CPP_MARKERS.test(text) ? 'cpp' : undefined,
};

export const cpp: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-cpp', wasm: 'tree-sitter-cpp.wasm' },
  defs: CPP_DEFS,
  // `template <typename T>` sits on its own line, so it joins the chunk, not the signature.
  wrappers: { template_declaration: { signature: true } },
  // Lets `template <...>` count as a wrapper holding only the definition.
  attachments: new Set(['template_parameter_list']),
  comments: C_COMMENTS,
  preprocessor: true,
};
