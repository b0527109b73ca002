import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { type Chunker, createChunker } from '../chunker.js';
import { assertWellFormed, symbolFor } from '../testing/chunk-assertions.js';
import { chunkOutline, symbolOutline } from '../testing/outline.js';

let chunker: Chunker;
before(async () => {
  // minChunkLines 1: every definition keeps its own chunk, however small.
  chunker = await createChunker({ minChunkLines: 1 });
});

const SCALA = `package shop.billing

/** Computes invoice totals. */
class InvoiceCalculator(rate: Double) extends Calculator {
  /** Total with tax. */
  def total(net: Double): Double = {
    net * (1 + rate)
  }
}

trait Calculator {
  def total(net: Double): Double
}

object Registry {
  def lookup(name: String): Option[Calculator] = None
}

case class Money(amount: Double)

enum Currency:
  case Eur, Usd
`;

test('scala: classes, traits, objects, enums and defs', () => {
  const r = chunker.chunkFile({
    path: 'src/main/scala/Invoice.scala',
    language: 'scala',
    text: SCALA,
  });
  assertWellFormed(r, SCALA);
  assert.deepEqual(symbolOutline(r), [
    'class:InvoiceCalculator',
    'method:InvoiceCalculator.total',
    'trait:Calculator',
    'method:Calculator.total',
    'class:Registry',
    'method:Registry.lookup',
    'class:Money',
    'enum:Currency',
  ]);
  assert.deepEqual(chunkOutline(r), [
    '1-1 block:null',
    '3-9 class:InvoiceCalculator',
    '11-13 trait:Calculator',
    '15-17 class:Registry',
    '19-19 class:Money',
    '21-22 enum:Currency',
  ]);
  const total = symbolFor(r, 'InvoiceCalculator.total');
  assert.equal(total.signature, 'def total(net: Double): Double');
  assert.equal(total.doc, 'Total with tax.');
  assert.equal(
    symbolFor(r, 'Registry.lookup').signature,
    'def lookup(name: String): Option[Calculator]',
  );
  assert.equal(symbolFor(r, 'Registry').signature, 'object Registry');
});
