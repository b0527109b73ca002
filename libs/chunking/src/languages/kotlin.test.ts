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

const KT = `package shop.billing

import kotlin.math.max

/** Computes invoice totals. */
class InvoiceCalculator(private val rate: Double) : Calculator {
    /** Total with tax. */
    override fun total(net: Double): Double {
        return net * (1 + rate)
    }

    companion object {
        fun default(): InvoiceCalculator = InvoiceCalculator(0.2)
    }
}

interface Calculator {
    fun total(net: Double): Double
}

object Registry {
    fun lookup(name: String): Calculator? = null
}

enum class Currency { EUR, USD }

// Formats money.
fun formatMoney(amount: Double): String = "%.2f".format(amount)
`;

test('kotlin: classes, interfaces, objects, enums and functions', () => {
  const r = chunker.chunkFile({ path: 'src/main/kotlin/Invoice.kt', language: 'kotlin', text: KT });
  assertWellFormed(r, KT);
  assert.deepEqual(symbolOutline(r), [
    'class:InvoiceCalculator',
    'method:InvoiceCalculator.total',
    'method:InvoiceCalculator.default',
    'interface:Calculator',
    'method:Calculator.total',
    'class:Registry',
    'method:Registry.lookup',
    'enum:Currency',
    'function:formatMoney',
  ]);
  assert.deepEqual(chunkOutline(r), [
    '1-3 block:null',
    '5-15 class:InvoiceCalculator',
    '17-19 interface:Calculator',
    '21-23 class:Registry',
    '25-25 enum:Currency',
    '27-28 function:formatMoney',
  ]);
  const total = symbolFor(r, 'InvoiceCalculator.total');
  assert.equal(total.signature, 'override fun total(net: Double): Double');
  assert.equal(total.doc, 'Total with tax.');
  assert.equal(symbolFor(r, 'InvoiceCalculator').doc, 'Computes invoice totals.');
  assert.equal(
    symbolFor(r, 'InvoiceCalculator').signature,
    'class InvoiceCalculator(private val rate: Double) : Calculator',
  );
  assert.equal(symbolFor(r, 'formatMoney').signature, 'fun formatMoney(amount: Double): String');
  assert.equal(symbolFor(r, 'formatMoney').doc, 'Formats money.');
});
