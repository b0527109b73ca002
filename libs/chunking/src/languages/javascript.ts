import type { DefRule, LanguageSpec } from './spec.js';

const FUNCTION_VALUE = '[(arrow_function) (function_expression) (generator_function)]';

const JS_LIKE_DEFS: readonly DefRule[] = [
  { query: '(function_declaration) @def', kind: 'function' },
  { query: '(generator_function_declaration) @def', kind: 'function' },
  { query: '(class_declaration) @def', kind: 'class' },
  { query: '(class_body (method_definition) @def)', kind: 'method' },
  {
    query: `(variable_declarator name: (identifier) value: ${FUNCTION_VALUE}) @def`,
    kind: 'function',
    body: ['value', 'body'],
  },
];

const TS_DEFS: readonly DefRule[] = [
  ...JS_LIKE_DEFS,
  { query: '(function_signature) @def', kind: 'function', body: [] },
  { query: '(abstract_class_declaration) @def', kind: 'class' },
  { query: '(interface_declaration) @def', kind: 'interface' },
  { query: '(type_alias_declaration) @def', kind: 'type', body: [] },
  { query: '(enum_declaration) @def', kind: 'enum' },
  { query: '(internal_module) @def', kind: 'module' },
  { query: '(module name: (_)) @def', kind: 'module' },
  { query: '(method_signature) @def', kind: 'method', body: [] },
  { query: '(abstract_method_signature) @def', kind: 'method', body: [] },
  {
    query: `(class_body (public_field_definition name: (_) value: ${FUNCTION_VALUE}) @def)`,
    kind: 'method',
    body: ['value', 'body'],
  },
];

const JS_DEFS: readonly DefRule[] = [
  ...JS_LIKE_DEFS,
  {
    query: `(class_body (field_definition property: (_) value: ${FUNCTION_VALUE}) @def)`,
    kind: 'method',
    nameFields: ['property'],
    body: ['value', 'body'],
  },
];

const JS_LIKE_WRAPPERS = {
  export_statement: { signature: true },
  lexical_declaration: { signature: true },
  variable_declaration: { signature: true },
  ambient_declaration: { signature: true },
  expression_statement: { signature: true },
};

const TYPESCRIPT: Omit<LanguageSpec, 'grammar'> = {
  defs: TS_DEFS,
  wrappers: JS_LIKE_WRAPPERS,
  attachments: new Set(['decorator']),
  comments: new Set(['comment']),
};

export const typescript: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-typescript', wasm: 'tree-sitter-typescript.wasm' },
  ...TYPESCRIPT,
};

export const tsx: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-typescript', wasm: 'tree-sitter-tsx.wasm' },
  ...TYPESCRIPT,
};

export const javascript: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-javascript', wasm: 'tree-sitter-javascript.wasm' },
  defs: JS_DEFS,
  wrappers: JS_LIKE_WRAPPERS,
  attachments: new Set(['decorator']),
  comments: new Set(['comment']),
};
