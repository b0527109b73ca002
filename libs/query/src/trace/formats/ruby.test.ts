import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onlyTrace, signals } from '../../testing/traces.js';

test('Ruby 3.4: Class#method frames become symbol paths, the first line carries the error', () => {
  const t =
    onlyTrace(`app/models/shop/order.rb:12:in 'Shop::Order#total': undefined method 'price' for nil (NoMethodError)
	from app/models/shop/order.rb:30:in 'block in Shop::Order.checkout'
	from /usr/local/bundle/gems/activesupport-7.1.3/lib/active_support/callbacks.rb:121:in 'block in run_callbacks'
	from <internal:kernel>:187:in 'loop'
	from bin/checkout:5:in '<main>'`);
  assert.equal(t.format, 'ruby');
  assert.deepEqual(
    t.frames.map((f) => f.external),
    [false, false, true, true, false],
  );
  assert.deepEqual(signals(t, 'path'), ['app/models/shop/order.rb', 'bin/checkout']);
  assert.deepEqual(signals(t, 'function'), ['Shop.Order.total', 'Shop.Order.checkout']);
  assert.deepEqual(signals(t, 'error-type'), ['NoMethodError']);
  assert.equal(t.errors[0]!.message, "undefined method 'price' for nil");
  assert.equal(t.frames[0]!.line, 12);
});

test('Ruby before 3.4: backtick frames name the method alone', () => {
  const t =
    onlyTrace(`lib/billing/invoice.rb:44:in \`apply_discount': discount too large (ArgumentError)
	from lib/billing/invoice.rb:20:in \`block (2 levels) in total'
	 ... 3 levels...
	from lib/billing.rb:8:in \`run'`);
  assert.equal(t.format, 'ruby');
  assert.deepEqual(signals(t, 'function'), ['apply_discount', 'total', 'run']);
  assert.deepEqual(signals(t, 'path'), ['lib/billing/invoice.rb', 'lib/billing.rb']);
  assert.deepEqual(signals(t, 'error-type'), ['ArgumentError']);
});
