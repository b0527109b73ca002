import type { UnitKind } from '@codesift/core';

/**
 * One kind of definition in one grammar. Each rule is a single tree-sitter
 * query pattern whose `@def` capture is the definition node, so a rule's
 * pattern index in the compiled query identifies the rule.
 */
export interface DefRule {
  query: string;
  kind: UnitKind;
  /** Fields tried in order for the name node; default ['name']. */
  nameFields?: readonly string[];
  /** Name is a type expression (Rust `impl<T> Foo<T>`): reduce it to `Foo`. */
  nameIsType?: boolean;
  /** Kind decided by the node type of a field (Go `type X struct {}`). */
  kindByField?: { field: string; kinds: Readonly<Record<string, UnitKind>> };
  /**
   * Steps from the definition to its body (field name, or a child node type
   * when no field exists); default ['body']. Empty: the node has no body and
   * the signature is the whole (bounded) declaration.
   */
  body?: readonly string[];
  /** Field holding a Go method receiver; its type becomes the parent. */
  receiverField?: string;
}

export interface LanguageSpec {
  /** Grammar package and the .wasm file at its root. */
  grammar: { pkg: string; wasm: string };
  defs: readonly DefRule[];
  /**
   * Parents that belong to the definition when it is their only named child
   * (`export`, Python decorators, Go's `type` keyword). `signature: true`
   * when the signature should start at the wrapper (`export const f = ...`).
   */
  wrappers: Readonly<Record<string, { signature: boolean }>>;
  /** Preceding siblings that are part of the definition (decorators, Rust attributes). */
  attachments: ReadonlySet<string>;
  /** Comment node types; a run of them directly above a definition is its doc. */
  comments: ReadonlySet<string>;
  /** Python: the first string statement of the body is the doc. */
  docstrings?: boolean;
}

/** Functions nested directly in these become methods. */
export const MEMBER_PARENT_KINDS: ReadonlySet<UnitKind> = new Set<UnitKind>([
  'class',
  'interface',
  'trait',
  'impl',
  'struct',
  'enum',
]);

/** Oversized definitions of these kinds are split along their members instead of by windows. */
export const CONTAINER_KINDS: ReadonlySet<UnitKind> = new Set<UnitKind>([
  'class',
  'interface',
  'trait',
  'impl',
  'struct',
  'enum',
  'module',
]);

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

const SPECS: Record<string, LanguageSpec> = {
  typescript: {
    grammar: { pkg: 'tree-sitter-typescript', wasm: 'tree-sitter-typescript.wasm' },
    ...TYPESCRIPT,
  },
  tsx: {
    grammar: { pkg: 'tree-sitter-typescript', wasm: 'tree-sitter-tsx.wasm' },
    ...TYPESCRIPT,
  },
  javascript: {
    grammar: { pkg: 'tree-sitter-javascript', wasm: 'tree-sitter-javascript.wasm' },
    defs: JS_DEFS,
    wrappers: JS_LIKE_WRAPPERS,
    attachments: new Set(['decorator']),
    comments: new Set(['comment']),
  },
  python: {
    grammar: { pkg: 'tree-sitter-python', wasm: 'tree-sitter-python.wasm' },
    defs: [
      { query: '(function_definition) @def', kind: 'function' },
      { query: '(class_definition) @def', kind: 'class' },
    ],
    wrappers: { decorated_definition: { signature: false } },
    // Decorators live inside decorated_definition; listing them lets it count as a wrapper.
    attachments: new Set(['decorator']),
    comments: new Set(['comment']),
    docstrings: true,
  },
  go: {
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
  },
  rust: {
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
  },
  java: {
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
  },
};

/** The structural spec for a language id, or undefined when it has none. */
export function languageSpec(language: string): LanguageSpec | undefined {
  return Object.hasOwn(SPECS, language) ? SPECS[language] : undefined;
}

export const STRUCTURAL_LANGUAGES: readonly string[] = Object.keys(SPECS);
