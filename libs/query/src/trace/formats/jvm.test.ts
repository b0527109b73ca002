import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onlyTrace, signals } from '../../testing/traces.js';

test('Kotlin on the JVM: file classes, lambdas and $default wrappers reduce to Class.method', () => {
  const t =
    onlyTrace(`Exception in thread "main" java.lang.IllegalArgumentException: quantity must be positive
	at com.acme.shop.Cart.add(Cart.kt:31)
	at com.acme.shop.Cart.add$default(Cart.kt:29)
	at com.acme.shop.Checkout$run$1.invokeSuspend(Checkout.kt:18)
	at kotlin.coroutines.jvm.internal.BaseContinuationImpl.resumeWith(ContinuationImpl.kt:33)
	at com.acme.shop.MainKt.main(Main.kt:7)`);
  assert.equal(t.format, 'java');
  // Kotlin and Scala symbols carry no package: the frame names Class.method.
  assert.deepEqual(signals(t, 'function'), ['Cart.add', 'Checkout.run', 'main']);
  assert.deepEqual(signals(t, 'path'), [
    'com/acme/shop/Cart.kt',
    'com/acme/shop/Checkout.kt',
    'com/acme/shop/Main.kt',
  ]);
  assert.equal(t.frames[3]!.external, true);
});

test('Scala objects and inner classes name their class', () => {
  const t = onlyTrace(`java.lang.ArithmeticException: / by zero
	at com.acme.Stats$.mean(Stats.scala:12)
	at com.acme.Report$Row.render(Report.scala:40)`);
  assert.deepEqual(signals(t, 'function'), ['Stats.mean', 'Row.render']);
});
