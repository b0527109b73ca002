// A symbol on the wire (CodeSymbol): the chunker's output on the bus, the
// symbol service's answers over NATS and SymbolService's over gRPC all use
// these two functions, so the mapping is written once. libs/proto stays
// generated code only.
import { create } from '@bufbuild/protobuf';
import type { SymbolInfo, UnitKind } from '@codesift/core';
import { type CodeSymbol, CodeSymbolSchema } from '@codesift/proto';

export function symbolToWire(s: SymbolInfo): CodeSymbol {
  return create(CodeSymbolSchema, {
    id: s.id,
    name: s.name,
    qualifiedName: s.qualifiedName,
    kind: s.kind,
    path: s.path,
    language: s.language,
    range: { startLine: s.startLine, endLine: s.endLine },
    // proto3 has no null string: empty means a top-level symbol.
    parent: s.parent ?? '',
    signature: s.signature,
    doc: s.doc,
  });
}

export function symbolFromWire(s: CodeSymbol): SymbolInfo {
  return {
    id: s.id,
    name: s.name,
    qualifiedName: s.qualifiedName,
    kind: s.kind as UnitKind,
    path: s.path,
    language: s.language,
    startLine: s.range?.startLine ?? 0,
    endLine: s.range?.endLine ?? 0,
    parent: s.parent === '' ? null : s.parent,
    signature: s.signature,
    doc: s.doc,
  };
}
