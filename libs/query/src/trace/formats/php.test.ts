import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onlyTrace, signals } from '../../testing/traces.js';

const PHP = `PHP Fatal error:  Uncaught App\\Billing\\AmountError: Amount must be positive in /var/www/src/Billing/InvoiceCalculator.php:27
Stack trace:
#0 /var/www/src/Http/InvoiceController.php(41): App\\Billing\\InvoiceCalculator->total(-5)
#1 [internal function]: App\\Billing\\InvoiceCalculator::applyTax(Array)
#2 /var/www/vendor/laravel/framework/src/Illuminate/Routing/Controller.php(54): App\\Http\\InvoiceController->show(Object(Illuminate\\Http\\Request))
#3 /var/www/src/Http/routes.php(12): App\\Http\\InvoiceController->{closure}()
#4 {main}
  thrown in /var/www/src/Billing/InvoiceCalculator.php on line 27`;

test('PHP: uncaught exception, numbered frames, namespaces dropped as the chunker does', () => {
  const t = onlyTrace(PHP);
  assert.equal(t.format, 'php');
  assert.equal(t.start, 0);
  assert.equal(t.end, PHP.length);
  assert.deepEqual(signals(t, 'error-type'), ['AmountError']);
  assert.equal(t.errors[0]!.message, 'Amount must be positive');
  assert.deepEqual(signals(t, 'path'), [
    '/var/www/src/Billing/InvoiceCalculator.php',
    '/var/www/src/Http/InvoiceController.php',
    '/var/www/src/Http/routes.php',
  ]);
  assert.deepEqual(signals(t, 'function'), [
    'InvoiceCalculator.total',
    'InvoiceCalculator.applyTax',
    'InvoiceController',
  ]);
  assert.equal(t.frames.find((f) => f.path?.includes('/vendor/'))?.external, true);
  assert.equal(t.frames[0]!.line, 27);
});

test('PHP: a warning names its file and line', () => {
  const t = onlyTrace('PHP Warning:  Undefined variable $total in /var/www/src/cart.php on line 9');
  assert.equal(t.format, 'php');
  assert.deepEqual(signals(t, 'path'), ['/var/www/src/cart.php']);
  assert.equal(t.frames[0]!.line, 9);
  assert.equal(t.errors[0]!.message, 'Undefined variable $total');
});
