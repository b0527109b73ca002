import type { BraceLanguage } from '../braces/spec.js';

const TYPE = { members: true, name: 'identifier' } as const;

/**
 * Swift has no tree-sitter grammar web-tree-sitter 0.27 can load, so it is
 * read by the brace recognizer (braces/recognizer.ts) from this table: our
 * own keyword rules, not a grammar's.
 */
export const swift: BraceLanguage = {
  reason:
    'no npm package ships a tree-sitter Swift .wasm that web-tree-sitter 0.27 loads (tree-sitter-swift 0.7.1 and @vscode/tree-sitter-wasm 0.3.1 have none; the one in tree-sitter-wasms 0.1.13 predates the dylink section and is refused)',
  lexis: {
    lineComments: ['//'],
    blockComment: { open: '/*', close: '*/', nests: true },
    strings: [
      { open: '"""', close: '"""', multiline: true, escape: '\\', interpolation: '(' },
      { open: '"', close: '"', multiline: false, escape: '\\', interpolation: '(' },
    ],
    rawDelimiter: '#',
  },
  declarations: {
    func: { kind: 'function', memberKind: 'method', name: 'operator' },
    init: { kind: 'method', name: 'keyword' },
    deinit: { kind: 'method', name: 'keyword' },
    subscript: { kind: 'method', name: 'keyword' },
    macro: { kind: 'function', name: 'identifier' },
    class: { kind: 'class', ...TYPE },
    actor: { kind: 'class', ...TYPE },
    struct: { kind: 'struct', ...TYPE },
    enum: { kind: 'enum', ...TYPE },
    protocol: { kind: 'interface', ...TYPE },
    // `extension Outer.Inner` adds to Outer.Inner: its members are filed there.
    extension: { kind: 'impl', members: true, name: 'dotted' },
    typealias: { kind: 'type', name: 'identifier' },
    associatedtype: { kind: 'type', name: 'identifier' },
    var: { kind: 'field', name: 'identifier', memberOnly: true },
    let: { kind: 'field', name: 'identifier', memberOnly: true },
  },
  modifiers: new Set([
    'public',
    'private',
    'fileprivate',
    'internal',
    'package',
    'open',
    'final',
    'static',
    'class',
    'override',
    'mutating',
    'nonmutating',
    'convenience',
    'required',
    'lazy',
    'weak',
    'unowned',
    'dynamic',
    'optional',
    'indirect',
    'nonisolated',
    'distributed',
    'prefix',
    'postfix',
    'infix',
    'consuming',
    'borrowing',
  ]),
  attributePrefix: '@',
  directives: new Set([
    '#if',
    '#elseif',
    '#else',
    '#endif',
    '#warning',
    '#error',
    '#sourceLocation',
  ]),
  continuesWith: /^(?:[{:,&=.?]|->|&&|\|\||where\b|throws\b|rethrows\b|async\b)/,
  continuesAfter: /(?:[,:=&([{+*/-]|->|\bwhere|\bthrows|\brethrows|\basync)$/,
};
