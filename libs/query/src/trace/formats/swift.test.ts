import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onlyTrace, signals } from '../../testing/traces.js';

test('Swift: a fatal error and crash-report frames, module and arguments dropped', () => {
  const t = onlyTrace(`Shop/OrderService.swift:42: Fatal error: Index out of range
Thread 0 Crashed:
0   libswiftCore.dylib            0x00000001a1b2c3d4 Swift._assertionFailure(_: Swift.StaticString, _: Swift.String, file: Swift.StaticString, line: Swift.UInt, flags: Swift.UInt32) -> Swift.Never + 164
1   Shop                          0x0000000100f0c8a4 Shop.OrderService.total(items: [Shop.Item]) -> Swift.Int + 120 (OrderService.swift:42)
2   Shop                          0x0000000100f0d123 closure #1 in Shop.CartView.body.getter + 64
3   Shop                          0x0000000100f0e456 $s4Shop7CartViewV4bodyQrvg + 12
4   UIKitCore                     0x00000001a5b6c7d8 -[UIViewController _sendViewDidLoadWithAppearanceProxyObjectTaggingEnabled] + 104`);
  assert.equal(t.format, 'swift');
  assert.deepEqual(
    t.frames.map((f) => f.external),
    [false, true, false, false, false, true],
  );
  assert.deepEqual(signals(t, 'path'), ['Shop/OrderService.swift', 'OrderService.swift']);
  assert.deepEqual(signals(t, 'function'), ['OrderService.total', 'CartView.body.getter']);
  assert.deepEqual(signals(t, 'error-type'), ['Fatal error']);
  assert.equal(t.errors[0]!.message, 'Index out of range');
});

test('Swift: the 5.9 backtracer prints module and source location after the function', () => {
  const t = onlyTrace(`*** Signal 4: Backtracing from 0x100f0c8a4... done ***
0 [ra] 0x0000000100f0c8a4 OrderService.total(items:) + 120 in Shop at /Users/dev/Shop/Sources/Shop/OrderService.swift:42:13
1 [ra] 0x0000000100f0f000 main + 52 in Shop at /Users/dev/Shop/Sources/Shop/main.swift:9:1
2 [ra] [system] 0x00000001a0b1c2d3 start + 2840 in dyld`);
  assert.equal(t.format, 'swift');
  assert.deepEqual(signals(t, 'function'), ['OrderService.total', 'main']);
  assert.deepEqual(signals(t, 'path'), [
    '/Users/dev/Shop/Sources/Shop/OrderService.swift',
    '/Users/dev/Shop/Sources/Shop/main.swift',
  ]);
  assert.equal(t.frames[0]!.column, 13);
  assert.equal(t.frames[2]!.external, true);
});
