import type { LanguageSpec } from './spec.js';

/**
 * Configuration files: every key holding a mapping or a list (a TOML table) is a section
 * named by its key path (`spec.template.spec.containers`, `jobs.build.steps`),
 * so a Kubernetes manifest or a CI workflow is findable by its keys. Keys
 * with scalar values stay inside their section's chunk.
 */
const DATA_SECTION = { kind: 'section', nameFields: ['key'], body: ['value'] } as const;

/** Deeper keys stay inside their ancestor's section: a big data file would otherwise be all symbols. */
const DATA_DEPTH = 5;

export const yaml: LanguageSpec = {
  grammar: { pkg: '@tree-sitter-grammars/tree-sitter-yaml', wasm: 'tree-sitter-yaml.wasm' },
  defs: [{ query: '(block_mapping_pair key: (_) value: (block_node)) @def', ...DATA_SECTION }],
  wrappers: {},
  attachments: new Set(),
  comments: new Set(['comment']),
  maxDefDepth: DATA_DEPTH,
};

/** TOML tables name themselves with their full key path: `[tool.poetry.dependencies]`. */
const TOML_TABLE = {
  kind: 'section',
  nameFields: ['bare_key|dotted_key|quoted_key'],
  body: [],
  oneLineSignature: true,
} as const;

export const toml: LanguageSpec = {
  grammar: { pkg: '@tree-sitter-grammars/tree-sitter-toml', wasm: 'tree-sitter-toml.wasm' },
  defs: [
    { query: '(table) @def', ...TOML_TABLE },
    { query: '(table_array_element) @def', ...TOML_TABLE },
  ],
  wrappers: {},
  attachments: new Set(),
  comments: new Set(['comment']),
};

/** HCL (Terraform): every block, named by its type and labels (`resource.aws_instance.web`). */
export const hcl: LanguageSpec = {
  grammar: { pkg: '@tree-sitter-grammars/tree-sitter-hcl', wasm: 'tree-sitter-hcl.wasm' },
  defs: [
    {
      query: '(block) @def',
      kind: 'section',
      nameParts: new Set(['identifier', 'string_lit']),
      body: ['block_start'],
    },
  ],
  wrappers: {},
  attachments: new Set(),
  comments: new Set(['comment']),
  // The blocks of a file sit in a `body` node that starts after the comment leading the first.
  bodyNodes: new Set(['body']),
};

export const json: LanguageSpec = {
  grammar: { pkg: 'tree-sitter-json', wasm: 'tree-sitter-json.wasm' },
  defs: [{ query: '(pair key: (string) value: [(object) (array)]) @def', ...DATA_SECTION }],
  wrappers: {},
  attachments: new Set(),
  comments: new Set(['comment']),
  maxDefDepth: DATA_DEPTH,
};
