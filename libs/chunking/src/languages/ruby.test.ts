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

const RB = `require 'json'

module Billing
  # Computes invoice totals.
  class InvoiceCalculator < Base
    def initialize(rate)
      @rate = rate
    end

    # Total with tax.
    def total(net)
      net * (1 + @rate)
    end

    def self.default
      new(0.2)
    end
  end
end

# Doubles x.
def helper(x)
  x * 2
end
`;

test('ruby: modules spread, classes, methods and singleton methods', () => {
  const r = chunker.chunkFile({ path: 'lib/billing.rb', language: 'ruby', text: RB });
  assertWellFormed(r, RB);
  assert.deepEqual(symbolOutline(r), [
    'module:Billing',
    'class:Billing.InvoiceCalculator',
    'method:Billing.InvoiceCalculator.initialize',
    'method:Billing.InvoiceCalculator.total',
    'method:Billing.InvoiceCalculator.default',
    'function:helper',
  ]);
  assert.deepEqual(chunkOutline(r), [
    '1-1 block:null',
    '3-3 module:Billing',
    '4-18 class:Billing.InvoiceCalculator',
    '19-19 module:Billing',
    '21-24 function:helper',
  ]);
  const cls = symbolFor(r, 'Billing.InvoiceCalculator');
  assert.equal(cls.signature, 'class InvoiceCalculator < Base');
  // The comment sits before the module's body node, not beside the class.
  assert.equal(cls.doc, 'Computes invoice totals.');
  assert.equal(symbolFor(r, 'Billing').signature, 'module Billing');
  const total = symbolFor(r, 'Billing.InvoiceCalculator.total');
  assert.equal(total.signature, 'def total(net)');
  assert.equal(total.doc, 'Total with tax.');
  assert.equal(symbolFor(r, 'Billing.InvoiceCalculator.default').signature, 'def self.default');
  assert.equal(symbolFor(r, 'helper').doc, 'Doubles x.');
});
