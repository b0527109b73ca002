import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { writeTree } from '../support/tree.js';

/**
 * A small repository in several languages. Each language has the function
 * a trace's first user frame names, a neighbour sharing its words, and a
 * test calling it more often than the function itself does: the pasted
 * trace must lead to the named function, not to the code that talks most
 * about it.
 */
const TREE = {
  'src/Shop/Billing/InvoiceCalculator.cs': `namespace Shop.Billing;

/// <summary>Sums invoice lines.</summary>
public class InvoiceCalculator
{
    public decimal Total(IEnumerable<decimal> lines)
    {
        var first = lines.First();
        var rest = lines.Skip(1);
        var sum = first + rest.Sum();
        return Math.Round(sum, 2);
    }

    public decimal TotalWithTax(IEnumerable<decimal> lines, decimal rate)
    {
        var total = Total(lines);
        var tax = total * rate;
        var gross = total + tax;
        return Math.Round(gross, 2);
    }
}
`,
  'src/Shop/Billing/InvoiceService.cs': `namespace Shop.Billing;

public class InvoiceService
{
    private readonly InvoiceCalculator calculator = new();

    public string Send(Invoice invoice)
    {
        var total = calculator.Total(invoice.Lines);
        var text = $"Invoice {invoice.Number}: {total}";
        mailer.Deliver(invoice.Customer, text);
        return text;
    }
}
`,
  'tests/Shop.Tests/InvoiceCalculatorTests.cs': `namespace Shop.Tests;

public class InvoiceCalculatorTests
{
    public void TotalOfEmptyInvoiceThrows()
    {
        var calculator = new InvoiceCalculator();
        calculator.Total(new decimal[0]);
        calculator.Total(new decimal[0]);
        calculator.TotalWithTax(new decimal[0], 0.2m);
    }
}
`,
  'app/models/shop/order.rb': `module Shop
  class Order
    def initialize(items)
      @items = items
    end

    # Sum of the item prices.
    def total
      sum = @items.sum { |item| item.price }
      discount = sum > 100 ? 5 : 0
      rounded = (sum - discount).round(2)
      rounded
    end

    def checkout
      amount = total
      receipt = charge(amount)
      notify(receipt)
      receipt
    end
  end
end
`,
  'spec/shop/order_spec.rb': `RSpec.describe Shop::Order do
  it 'totals the items' do
    order = Shop::Order.new([])
    expect(order.total).to eq(0)
    expect(order.checkout).to be_truthy
  end
end
`,
  'src/geo/shape.cc': `#include "shape.h"

namespace geo {

double Circle::area() const {
  const double pi = 3.14159;
  const double r = radius_->value();
  const double squared = r * r;
  return pi * squared;
}

double Circle::perimeter() const {
  const double pi = 3.14159;
  const double r = radius_->value();
  const double twice = 2 * r;
  return pi * twice;
}

double total_area(const std::vector<Shape*>& shapes) {
  double sum = 0;
  for (auto* s : shapes) {
    sum += s->area();
  }
  return sum;
}

}  // namespace geo
`,
  'src/geo/shape_test.cc': `#include "shape.h"

TEST(Circle, Area) {
  geo::Circle c(1.0);
  EXPECT_NEAR(c.area(), 3.14159, 1e-5);
  EXPECT_NEAR(c.area(), 3.14159, 1e-5);
}
`,
  'lua/cart.lua': `local M = {}

-- Sum of the prices in the cart.
function M.total(cart)
  local sum = 0
  for _, item in ipairs(cart.items) do
    sum = sum + item.price
  end
  return sum
end

function M.checkout(cart)
  local total = M.total(cart)
  local tax = total * 0.2
  local receipt = { total = total, tax = tax }
  cart.items = {}
  return receipt
end

return M
`,
  'src/main/kotlin/com/acme/shop/Cart.kt': `package com.acme.shop

class Cart(private val items: MutableList<Item>) {
    fun add(item: Item, quantity: Int = 1) {
        require(quantity > 0) { "quantity must be positive" }
        repeat(quantity) {
            items.add(item)
        }
        log("added \${item.name}")
    }

    fun addAll(more: List<Item>) {
        for (item in more) {
            add(item)
        }
        log("added \${more.size} items")
    }
}
`,
  'src/test/kotlin/com/acme/shop/CartTest.kt': `package com.acme.shop

class CartTest {
    fun addRejectsZeroQuantity() {
        val cart = Cart(mutableListOf())
        cart.add(Item("pen"), 0)
        cart.add(Item("ink"), 0)
    }
}
`,
  'Sources/Till/Basket.swift': `import Foundation

/// Goods on their way to the till.
public struct Basket {
    var goods: [Goods] = []

    public func subtotal() -> Double {
        var sum = 0.0
        for i in 0...goods.count {
            sum += goods[i].price
        }
        return sum
    }
}
`,
  'Sources/Till/Register.swift': `public struct Register {
    let basket: Basket

    public func ring() -> Slip {
        let subtotal = basket.subtotal()
        let levy = subtotal * 0.2
        return Slip(subtotal: subtotal, levy: levy, basket: basket)
    }
}
`,
  'Tests/TillTests/BasketTests.swift': `import XCTest
@testable import Till

final class BasketTests: XCTestCase {
    func testSubtotal() {
        XCTAssertEqual(Basket(goods: []).subtotal(), 0)
        XCTAssertEqual(Basket(goods: []).subtotal(), 0)
    }
}
`,
  'src/Billing/InvoiceController.php': `<?php

namespace App\\Billing;

class InvoiceController
{
    public function show(int $id): string
    {
        $calculator = new InvoiceCalculator();
        $net = $this->invoices->net($id);
        $total = $calculator->total($net);
        return sprintf('Invoice %d: %.2f', $id, $total);
    }
}
`,
  'src/Billing/InvoiceCalculator.php': `<?php

namespace App\\Billing;

class InvoiceCalculator
{
    public function total(float $net): float
    {
        if ($net < 0) {
            throw new AmountError('Amount must be positive');
        }
        return $net * 1.2;
    }
}
`,
};

/** Each trace, the function its first user frame names (as the parser reduces it), and where that function is. */
const TRACES: {
  runtime: string;
  trace: string;
  fn: string;
  path: string;
  line: number;
}[] = [
  {
    runtime: 'Ruby',
    trace: `app/models/shop/order.rb:9:in 'block in Shop::Order#total': undefined method 'price' for nil (NoMethodError)
	from app/models/shop/order.rb:9:in 'Array#sum'
	from app/models/shop/order.rb:9:in 'Shop::Order#total'
	from app/models/shop/order.rb:16:in 'Shop::Order#checkout'
	from spec/shop/order_spec.rb:5:in 'block (2 levels) in <top (required)>'`,
    fn: 'Shop.Order.total',
    path: 'app/models/shop/order.rb',
    line: 9,
  },
  {
    runtime: 'Lua',
    trace: `lua: lua/cart.lua:7: attempt to perform arithmetic on a nil value (field 'price')
stack traceback:
	lua/cart.lua:7: in function 'cart.total'
	lua/cart.lua:13: in function 'cart.checkout'
	main.lua:4: in main chunk
	[C]: in ?`,
    fn: 'cart.total',
    path: 'lua/cart.lua',
    line: 7,
  },
  {
    runtime: 'PHP',
    trace: `PHP Fatal error:  Uncaught App\\Billing\\AmountError: Amount must be positive in /var/www/src/Billing/InvoiceCalculator.php:10
Stack trace:
#0 /var/www/src/Billing/InvoiceController.php(11): App\\Billing\\InvoiceCalculator->total(-5)
#1 /var/www/public/index.php(20): App\\Billing\\InvoiceController->show(7)
#2 {main}
  thrown in /var/www/src/Billing/InvoiceCalculator.php on line 10`,
    fn: 'InvoiceCalculator.total',
    path: 'src/Billing/InvoiceCalculator.php',
    line: 10,
  },
  {
    runtime: '.NET',
    trace: `Unhandled exception. System.InvalidOperationException: Sequence contains no elements
   at System.Linq.ThrowHelper.ThrowNoElementsException()
   at System.Linq.Enumerable.First[TSource](IEnumerable\`1 source)
   at Shop.Billing.InvoiceCalculator.Total(IEnumerable\`1 lines) in /src/Shop/Billing/InvoiceCalculator.cs:line 8
   at Shop.Billing.InvoiceService.Send(Invoice invoice) in /src/Shop/Billing/InvoiceService.cs:line 9
   at Program.Main() in /src/Program.cs:line 5`,
    fn: 'Shop.Billing.InvoiceCalculator.Total',
    path: 'src/Shop/Billing/InvoiceCalculator.cs',
    line: 8,
  },
  {
    runtime: 'C++ (gdb)',
    trace: `Program received signal SIGSEGV, Segmentation fault.
(gdb) bt
#0  geo::Circle::area (this=0x0) at src/geo/shape.cc:7
#1  0x00005555555551d2 in geo::total_area (shapes=...) at src/geo/shape.cc:22
#2  0x0000555555555230 in main () at src/main.cc:9`,
    fn: 'geo.Circle.area',
    path: 'src/geo/shape.cc',
    line: 7,
  },
  {
    // No Swift grammar: the brace recognizer's symbols. Basket.subtotal is a
    // defined failing function (full boost); Register.ring, a defined caller
    // whose chunk spells `basket.subtotal()` and leads on BM25, gets the
    // caller share, which must stay small enough for the definition to win.
    runtime: 'Swift (brace recognizer)',
    trace: `Fatal error: Index out of range
Thread 0 Crashed:
0   libswiftCore.dylib            0x00000001a2b3c4d4 $ss18_fatalErrorMessage + 120
1   Till                          0x0000000100a1b2c3 Basket.subtotal() + 88 (Basket.swift:10)
2   Till                          0x0000000100a1b3d4 Register.ring() + 40 (Register.swift:5)`,
    fn: 'Basket.subtotal',
    path: 'Sources/Till/Basket.swift',
    line: 10,
  },
  {
    runtime: 'Kotlin (JVM)',
    trace: `Exception in thread "main" java.lang.IllegalArgumentException: quantity must be positive
	at com.acme.shop.Cart.add(Cart.kt:5)
	at com.acme.shop.Cart.add$default(Cart.kt:4)
	at com.acme.shop.MainKt.main(Main.kt:7)`,
    fn: 'Cart.add',
    path: 'src/main/kotlin/com/acme/shop/Cart.kt',
    line: 5,
  },
];

/** A pasted stack trace from each runtime, searched over an index of the repository it came from. */
describe('pasted stack traces find the frame that failed (CLI, end to end)', () => {
  let work: string;
  let root: string;
  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-e2e-traces-'));
    root = path.join(work, 'repo');
    writeTree(root, TREE);
    const r = await runCli(['index', root, '--quiet', '--no-vectors']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  for (const c of TRACES) {
    test(`${c.runtime}: the failing function ranks first`, async () => {
      const r = await runCli(['search', c.trace, '--json', '--explain', '--limit', '3'], {
        cwd: root,
      });
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      // Read as a trace: the frame's function is an anchor and tests are out of focus.
      assert.equal(out.plan.input.hasTrace, true);
      assert.ok(
        out.plan.anchors.list.some((a: { text: string }) => a.text === c.fn),
        JSON.stringify(out.plan.anchors.list),
      );
      assert.equal(out.plan.focus.focus, 'implementation');
      // The function it failed in is the preferred definition, not its callers.
      assert.equal(out.plan.definitions.failingFunction, c.fn);
      const results: { path: string; startLine: number; endLine: number }[] = out.results;
      const rank = results.findIndex(
        (x) => x.path === c.path && x.startLine <= c.line && c.line <= x.endLine,
      );
      assert.equal(rank, 0, r.stdout);
    });
  }
});
