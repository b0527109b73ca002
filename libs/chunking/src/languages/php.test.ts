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

const PHP = `<?php

namespace App\\Billing;

/**
 * Computes invoice totals.
 */
#[Service]
class InvoiceCalculator implements Calculator
{
    private float $rate;

    /** Total with tax. */
    public function total(float $net): float
    {
        return $net * (1 + $this->rate);
    }
}

interface Calculator
{
    public function total(float $net): float;
}

trait Loggable
{
    public function log(string $m): void { echo $m; }
}

enum Suit { case Hearts; }

// Formats a number.
function format_money(float $amount): string
{
    return number_format($amount, 2);
}
`;

test('php: classes, interfaces, traits, enums, methods and functions', () => {
  const r = chunker.chunkFile({ path: 'src/Billing/Invoice.php', language: 'php', text: PHP });
  assertWellFormed(r, PHP);
  assert.deepEqual(symbolOutline(r), [
    'class:InvoiceCalculator',
    'method:InvoiceCalculator.total',
    'interface:Calculator',
    'method:Calculator.total',
    'trait:Loggable',
    'method:Loggable.log',
    'enum:Suit',
    'function:format_money',
  ]);
  assert.deepEqual(chunkOutline(r), [
    '1-3 block:null',
    '5-18 class:InvoiceCalculator',
    '20-23 interface:Calculator',
    '25-28 trait:Loggable',
    '30-30 enum:Suit',
    '32-36 function:format_money',
  ]);
  const cls = symbolFor(r, 'InvoiceCalculator');
  assert.equal(cls.signature, 'class InvoiceCalculator implements Calculator');
  assert.equal(cls.doc, 'Computes invoice totals.');
  const total = symbolFor(r, 'InvoiceCalculator.total');
  assert.equal(total.signature, 'public function total(float $net): float');
  assert.equal(total.doc, 'Total with tax.');
  assert.equal(symbolFor(r, 'format_money').doc, 'Formats a number.');
});
