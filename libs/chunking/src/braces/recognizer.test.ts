import assert from 'node:assert/strict';
import { test } from 'node:test';
import { swift } from '../languages/swift.js';
import { SourceLines } from '../lines.js';
import type { DefNode } from '../symbols.js';
import { recognizeDeclarations } from './recognizer.js';
import type { BraceLanguage } from './spec.js';

/** `kind:qualifiedName start-end` of every definition, depth first. */
function outline(defs: readonly DefNode[]): string[] {
  return defs.flatMap((d) => [
    `${d.kind}:${d.qualifiedName} ${d.declStart}-${d.endLine}`,
    ...outline(d.children),
  ]);
}

test('a brace in a string, an interpolation or a comment closes no body', () => {
  const text = [
    'struct Menu {', //                                 1
    '    func title() -> String {', //                  2
    '        let a = "}"', //                           3
    '        let b = "\\(items.map { "\\($0)}" })"', //  4
    // A raw string's backslash escapes nothing: read as `\"`, the `{` after it is code.
    '        let c = #"\\"# + "{"', //                 5
    '        // }', //                                   6
    '        /* } /* } */ } */', //                     7
    '        return a + b + c', //                      8
    '    }', //                                         9
    '    func footer() {}', //                          10
    '}', //                                             11
  ].join('\n');
  assert.deepEqual(outline(recognizeDeclarations(new SourceLines(text), swift)), [
    'struct:Menu 1-11',
    'method:Menu.title 2-9',
    'method:Menu.footer 10-10',
  ]);
});

test('closures, trailing closures and property observers belong to the declaration they are in', () => {
  const text = [
    'final class Store {',
    '    lazy var cache: [String: Int] = {',
    '        var d = [String: Int]()',
    '        return d',
    '    }()',
    '    var count = 0 {',
    '        didSet { print("\\(count)") }',
    '    }',
    '    let sorted = [3, 1].sorted { $0 < $1 }',
    '        .map { $0 * 2 }',
    '    func run() {',
    '        DispatchQueue.main.async { func nested() {} }',
    '    }',
    '}',
  ].join('\n');
  assert.deepEqual(outline(recognizeDeclarations(new SourceLines(text), swift)), [
    'class:Store 1-14',
    'field:Store.cache 2-5',
    'field:Store.count 6-8',
    'field:Store.sorted 9-10',
    // A function's body is opaque: `nested` is not a member of Store.
    'method:Store.run 11-13',
  ]);
});

test('#if branches, attributes on their own lines and an opening brace on its own line', () => {
  const text = [
    '#if canImport(UIKit)',
    '@available(iOS 15, *)',
    '@MainActor',
    'public struct Screen',
    '    : View',
    '{',
    '    #if DEBUG',
    '    nonisolated func debug() {}',
    '    #endif',
    '}',
    '#endif',
    'var top = 1',
  ].join('\n');
  // A top-level `var` is a statement, not a member.
  assert.deepEqual(outline(recognizeDeclarations(new SourceLines(text), swift)), [
    'struct:Screen 2-10',
    'method:Screen.debug 8-8',
  ]);
});

test('another brace language is a table entry: keywords, comments and strings', () => {
  // A made-up language: `fn` and `record`, `#` comments, `'` strings.
  const toy: BraceLanguage = {
    reason: 'a test language',
    lexis: {
      lineComments: ['#'],
      strings: [{ open: "'", close: "'", multiline: false, escape: '\\' }],
    },
    declarations: {
      fn: { kind: 'function', memberKind: 'method', name: 'identifier' },
      record: { kind: 'struct', name: 'identifier', members: true },
    },
    modifiers: new Set(['pub']),
    continuesWith: /^\{/,
    continuesAfter: /,$/,
  };
  const text = [
    '# A point.',
    "pub record Point { fn show() { print('}') } }",
    'fn main(a,',
    '        b)',
    '{ }',
  ].join('\n');
  const defs = recognizeDeclarations(new SourceLines(text), toy);
  assert.deepEqual(outline(defs), [
    'struct:Point 2-2',
    'method:Point.show 2-2',
    'function:main 3-5',
  ]);
  assert.equal(defs[0]?.doc, 'A point.');
  assert.equal(defs[0]?.chunkStart, 1);
  assert.equal(defs[1]?.signature, 'fn main(a, b)');
});
