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

const CS = `using System;

namespace Shop.Billing
{
    /// <summary>Computes invoice totals.</summary>
    public class InvoiceCalculator : ICalculator
    {
        private readonly decimal rate;

        public InvoiceCalculator(decimal rate) { this.rate = rate; }

        /// <summary>Total with tax, see <see cref="Rate"/>.</summary>
        /// <param name="net">Amount before tax.</param>
        [Obsolete]
        public decimal Total(decimal net)
        {
            return net * (1 + rate);
        }

        public decimal Rate => rate;
    }

    public interface ICalculator
    {
        decimal Total(decimal net);
    }

    public enum Currency { Eur, Usd }

    public record Money(decimal Amount, Currency Currency);
}
`;

test('csharp: namespaces, classes, members, XML doc comments and attributes', () => {
  const r = chunker.chunkFile({ path: 'src/Billing/Invoice.cs', language: 'csharp', text: CS });
  assertWellFormed(r, CS);
  assert.deepEqual(symbolOutline(r), [
    'module:Shop.Billing',
    'class:Shop.Billing.InvoiceCalculator',
    'method:Shop.Billing.InvoiceCalculator.InvoiceCalculator',
    'method:Shop.Billing.InvoiceCalculator.Total',
    'interface:Shop.Billing.ICalculator',
    'method:Shop.Billing.ICalculator.Total',
    'enum:Shop.Billing.Currency',
    'class:Shop.Billing.Money',
  ]);
  assert.deepEqual(chunkOutline(r), [
    '1-1 block:null',
    '3-4 module:Shop.Billing',
    '5-21 class:Shop.Billing.InvoiceCalculator',
    '23-26 interface:Shop.Billing.ICalculator',
    '28-28 enum:Shop.Billing.Currency',
    '30-31 class:Shop.Billing.Money',
  ]);
  const total = symbolFor(r, 'Shop.Billing.InvoiceCalculator.Total');
  assert.equal(total.signature, 'public decimal Total(decimal net)');
  assert.equal(total.doc, 'Total with tax, see Rate.\nAmount before tax.');
  assert.equal(total.startLine, 14, 'the attribute starts the declaration');
  assert.equal(total.parent, 'Shop.Billing.InvoiceCalculator');
  assert.equal(symbolFor(r, 'Shop.Billing.InvoiceCalculator').doc, 'Computes invoice totals.');
});

// The same kind of file with a file-scoped namespace (C# 10): no braces, the
// namespace covers everything after it.
const CS_FILE_SCOPED = `using System;

namespace Shop.Billing;

/// <summary>Computes invoice totals.</summary>
public class InvoiceCalculator
{
    public decimal Total(decimal net)
    {
        return net * 2;
    }
}

public enum Currency { Eur, Usd }
`;

test('csharp: a file-scoped namespace qualifies every symbol after it, as a block namespace does', () => {
  const r = chunker.chunkFile({
    path: 'src/Billing/Invoice.cs',
    language: 'csharp',
    text: CS_FILE_SCOPED,
  });
  assertWellFormed(r, CS_FILE_SCOPED);
  assert.deepEqual(symbolOutline(r), [
    'module:Shop.Billing',
    'class:Shop.Billing.InvoiceCalculator',
    'method:Shop.Billing.InvoiceCalculator.Total',
    'enum:Shop.Billing.Currency',
  ]);
  assert.deepEqual(chunkOutline(r), [
    '1-1 block:null',
    '3-3 module:Shop.Billing',
    '5-12 class:Shop.Billing.InvoiceCalculator',
    '14-14 enum:Shop.Billing.Currency',
  ]);
  assert.equal(symbolFor(r, 'Shop.Billing').signature, 'namespace Shop.Billing');
  assert.equal(
    symbolFor(r, 'Shop.Billing.InvoiceCalculator.Total').parent,
    'Shop.Billing.InvoiceCalculator',
  );
});
