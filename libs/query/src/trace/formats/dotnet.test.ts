import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onlyTrace, signals } from '../../testing/traces.js';

const DOTNET = `Unhandled exception. System.InvalidOperationException: Sequence contains no elements
   at System.Linq.ThrowHelper.ThrowNoElementsException()
   at System.Linq.Enumerable.First[TSource](IEnumerable\`1 source)
   at Shop.Billing.InvoiceCalculator.Total(IEnumerable\`1 lines) in /src/Shop/Billing/InvoiceCalculator.cs:line 27
   at Shop.Billing.InvoiceService.<SendAsync>d__4.MoveNext() in C:\\src\\Shop\\Billing\\InvoiceService.cs:line 41
--- End of stack trace from previous location ---
   at System.Runtime.CompilerServices.TaskAwaiter.ThrowForNonSuccess(Task task)
   at Shop.Program.<>c.<Main>b__0_0(Order o)
   at Shop.Billing.Invoice..ctor(Int32 number, String customer) in /src/Shop/Billing/Invoice.cs:line 12`;

test('.NET: frames with and without files, compiler-generated names reduced to their method', () => {
  const t = onlyTrace(DOTNET);
  assert.equal(t.format, 'dotnet');
  assert.equal(t.frames.length, 7);
  assert.deepEqual(
    t.frames.map((f) => f.external),
    [true, true, false, false, true, false, false],
  );
  assert.deepEqual(signals(t, 'path'), [
    '/src/Shop/Billing/InvoiceCalculator.cs',
    'C:\\src\\Shop\\Billing\\InvoiceService.cs',
    '/src/Shop/Billing/Invoice.cs',
  ]);
  // Namespaces stay: the chunker's C# symbols carry them.
  assert.deepEqual(signals(t, 'function'), [
    'Shop.Billing.InvoiceCalculator.Total',
    'Shop.Billing.InvoiceService.SendAsync',
    'Shop.Program.Main',
    'Shop.Billing.Invoice',
  ]);
  assert.equal(t.frames[2]!.line, 27);
  assert.deepEqual(signals(t, 'error-type'), ['InvalidOperationException']);
  assert.equal(t.errors[0]!.message, 'Sequence contains no elements');
});

test('.NET: an inner exception and a frame without parameters', () => {
  const t = onlyTrace(`System.AggregateException: One or more errors occurred. (Boom)
 ---> System.ArgumentException: Boom
   at Shop.Jobs.Nightly.Run() in /src/Shop/Jobs/Nightly.cs:line 8
   --- End of inner exception stack trace ---
   at Shop.Jobs.Scheduler.Start()`);
  assert.equal(t.format, 'dotnet');
  assert.deepEqual(signals(t, 'error-type'), ['AggregateException', 'ArgumentException']);
  assert.deepEqual(signals(t, 'function'), ['Shop.Jobs.Nightly.Run', 'Shop.Jobs.Scheduler.Start']);
});

test('.NET and JVM frames are told apart by what is in the parentheses', () => {
  const jvm = onlyTrace(`java.lang.IllegalStateException: boom
	at com.acme.Foo.bar(Unknown Source)
	at com.acme.Foo.baz(Native Method)`);
  assert.equal(jvm.format, 'java');
  assert.deepEqual(signals(jvm, 'function'), ['Foo.bar', 'Foo.baz']);
});
