import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { type Chunker, createChunker } from '../chunker.js';
import { assertWellFormed, symbolFor } from '../testing/chunk-assertions.js';
import { chunkOutline } from '../testing/outline.js';

// Swift has no loadable grammar: these are the brace recognizer's chunks and symbols.
let chunker: Chunker;
let split: Chunker;
before(async () => {
  // minChunkLines 1: every definition keeps its own chunk, however small.
  chunker = await createChunker({ minChunkLines: 1 });
  // A class over 20 lines is split along its members.
  split = await createChunker({ minChunkLines: 1, maxChunkLines: 20 });
});

// Braces inside strings, interpolations, raw strings and nested comments in
// quoted(): read as code, any of them closes a body early and init, deinit,
// Kind... stop being members of ArgumentParser.
const SWIFT = `import Foundation

/// Parses command-line arguments.
@available(macOS 12, *)
public final class ArgumentParser<Value: Decodable>: Parser where Value: Sendable {
    /** The names it accepts. */
    private(set) var names: [String] = ["}", "{"]

    // Derived, not stored.
    var isEmpty: Bool {
        names.isEmpty
    }

    /// Every name, quoted.
    @MainActor
    public override func quoted(
        separator: String = ", ",
        transform: (String) -> String = { "{\\($0)}" }
    ) async throws -> String
        where Value: Equatable
    {
        let header = "usage: \\(names.map { "\\"\\($0)}\\"" }.joined()) {"
        /* a nested /* comment } */ still a comment } */
        let body = """
            }
            \\(header) }
            """
        let raw = #"not an interpolation \\(x) } "#
        return names.map { name in "\\(name)" }.joined(separator: separator) + body + raw
    }

    init?(names: [String]) {
        self.names = names
    }

    deinit {}

    subscript(index: Int) -> String { names[index] }

    class func make() -> Self? { nil }

    enum Kind: String {
        case flag, option
        struct Spelling {
            let text: String
        }
    }
}

extension ArgumentParser.Kind: CustomStringConvertible where Value: Hashable {
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }
    var description: String { "kind: \\(rawValue) }" }
}

#if os(macOS)
protocol Completing {
    associatedtype Candidate
    func complete(_ prefix: String) -> [Candidate]
}
#else
typealias Completing = AnyObject
#endif

actor Cache {
    func value(for key: String) -> Int? { nil }
}

func parse<T>(_ text: String, as type: T.Type) throws -> T where T: Decodable {
    fatalError("} not closed {")
}
`;

const PATH = 'Sources/ArgumentParser/ArgumentParser.swift';

test('swift: types, members, extensions, protocols and functions, with their line ranges', () => {
  const r = chunker.chunkFile({ path: PATH, language: 'swift', text: SWIFT });
  assertWellFormed(r, SWIFT);
  assert.deepEqual(
    r.symbols.map((s) => `${s.kind}:${s.qualifiedName} ${s.startLine}-${s.endLine}`),
    [
      'class:ArgumentParser 4-48',
      'field:ArgumentParser.names 7-7',
      'field:ArgumentParser.isEmpty 10-12',
      'method:ArgumentParser.quoted 15-30',
      'method:ArgumentParser.init 32-34',
      'method:ArgumentParser.deinit 36-36',
      'method:ArgumentParser.subscript 38-38',
      'method:ArgumentParser.make 40-40',
      'enum:ArgumentParser.Kind 42-47',
      'struct:ArgumentParser.Kind.Spelling 44-46',
      'field:ArgumentParser.Kind.Spelling.text 45-45',
      'impl:ArgumentParser.Kind 50-53',
      'method:ArgumentParser.Kind.== 51-51',
      'field:ArgumentParser.Kind.description 52-52',
      'interface:Completing 56-59',
      'type:Completing.Candidate 57-57',
      'method:Completing.complete 58-58',
      'type:Completing 61-61',
      'class:Cache 64-66',
      'method:Cache.value 65-65',
      'function:parse 68-70',
    ],
  );
  assert.deepEqual(chunkOutline(r), [
    '1-1 block:null',
    '3-48 class:ArgumentParser',
    '50-53 impl:ArgumentParser.Kind',
    '55-55 block:null',
    '56-59 interface:Completing',
    '60-60 block:null',
    '61-61 type:Completing',
    '62-62 block:null',
    '64-66 class:Cache',
    '68-70 function:parse',
  ]);
  assert.match(r.structural ?? '', /brace recognizer/);
});

test('swift: signatures run to the body, without attributes; docs are the comments directly above', () => {
  const r = chunker.chunkFile({ path: PATH, language: 'swift', text: SWIFT });
  const cls = symbolFor(r, 'ArgumentParser');
  assert.equal(
    cls.signature,
    'public final class ArgumentParser<Value: Decodable>: Parser where Value: Sendable',
  );
  assert.equal(cls.doc, 'Parses command-line arguments.');
  assert.equal(cls.parent, null);
  const quoted = symbolFor(r, 'ArgumentParser.quoted');
  assert.equal(
    quoted.signature,
    'public override func quoted( separator: String = ", ", transform: (String) -> String = { "{\\($0)}" } ) async throws -> String where Value: Equatable',
  );
  assert.equal(quoted.doc, 'Every name, quoted.');
  assert.equal(quoted.parent, 'ArgumentParser');
  assert.equal(symbolFor(r, 'ArgumentParser.names').doc, 'The names it accepts.');
  assert.equal(symbolFor(r, 'ArgumentParser.isEmpty').doc, 'Derived, not stored.');
  assert.equal(symbolFor(r, 'ArgumentParser.isEmpty').signature, 'var isEmpty: Bool');
  assert.equal(symbolFor(r, 'ArgumentParser.init').signature, 'init?(names: [String])');
  assert.equal(symbolFor(r, 'ArgumentParser.make').signature, 'class func make() -> Self?');
  assert.equal(
    symbolFor(r, 'ArgumentParser.Kind.==').signature,
    'static func == (lhs: Self, rhs: Self) -> Bool',
  );
  // An extension of a nested type files its members under the type's full path.
  const ext = r.symbols.find((s) => s.kind === 'impl');
  assert.equal(ext?.name, 'Kind');
  assert.equal(ext?.parent, 'ArgumentParser');
  assert.equal(
    ext?.signature,
    'extension ArgumentParser.Kind: CustomStringConvertible where Value: Hashable',
  );
  assert.equal(
    symbolFor(r, 'parse').signature,
    'func parse<T>(_ text: String, as type: T.Type) throws -> T where T: Decodable',
  );
  assert.equal(symbolFor(r, 'parse').doc, '');
});

test('swift: an oversized type is chunked along its members, each with its own symbol', () => {
  const r = split.chunkFile({ path: PATH, language: 'swift', text: SWIFT });
  assertWellFormed(r, SWIFT);
  assert.deepEqual(chunkOutline(r).slice(0, 11), [
    '1-1 block:null',
    '3-5 class:ArgumentParser',
    '6-7 field:ArgumentParser.names',
    '9-12 field:ArgumentParser.isEmpty',
    '14-30 method:ArgumentParser.quoted',
    '32-34 method:ArgumentParser.init',
    '36-36 method:ArgumentParser.deinit',
    '38-38 method:ArgumentParser.subscript',
    '40-40 method:ArgumentParser.make',
    // The class's lone closing brace is folded into its last member.
    '42-48 enum:ArgumentParser.Kind',
    '50-53 impl:ArgumentParser.Kind',
  ]);
  const quoted = r.chunks.find((c) => c.symbol === 'ArgumentParser.quoted');
  assert.equal(quoted?.doc, 'Every name, quoted.');
  assert.match(quoted?.signature ?? '', /^public override func quoted\(/);
});

test('swift: a file the recognizer cannot read gets line windows and says why', () => {
  // Interpolations nested past the call stack's depth, on short lines (not minified).
  const text = `let s = ${'"\\(\n'.repeat(100_000)}`;
  const r = chunker.chunkFile({ path: 'Deep.swift', language: 'swift', text });
  assert.match(r.noAst ?? '', /^the brace recognizer failed: /);
  assert.equal(r.structural, undefined);
  assert.ok(r.chunks.length > 0 && r.chunks.every((c) => c.kind === 'window'));
});
