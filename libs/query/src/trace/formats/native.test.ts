import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onlyTrace, signals } from '../../testing/traces.js';

test('gdb: namespaced C++ frames become dotted symbol paths, libc frames are external', () => {
  const t = onlyTrace(`Program received signal SIGSEGV, Segmentation fault.
0x000055555555518d in shop::Order::total (this=0x7fffffffe0b0, n=3) at src/order.cc:12
(gdb) bt
#0  0x000055555555518d in shop::Order::total (this=0x7fffffffe0b0, n=3) at src/order.cc:12
#1  0x00005555555551d2 in shop::(anonymous namespace)::checkout<std::vector<int, std::allocator<int> > > (items=...) at src/checkout.cc:40
#2  0x0000555555555230 in main () at src/main.cc:5
#3  0x00007ffff7829d90 in __libc_start_call_main (main=main@entry=0x555555555210 <main()>, argc=argc@entry=1, argv=argv@entry=0x7fffffffe1f8) at ../sysdeps/nptl/libc_start_call_main.h:58
#4  0x00007ffff7829e40 in __libc_start_main_impl (main=0x555555555210 <main()>, argc=1) at ../csu/libc-start.c:392`);
  assert.equal(t.format, 'native');
  assert.deepEqual(signals(t, 'error-type'), ['SIGSEGV']);
  assert.deepEqual(signals(t, 'path'), ['src/order.cc', 'src/checkout.cc', 'src/main.cc']);
  assert.deepEqual(signals(t, 'function'), ['shop.Order.total', 'shop.checkout', 'main']);
  assert.deepEqual(
    t.frames.slice(-2).map((f) => f.external),
    [true, true],
  );
});

test('AddressSanitizer: the report header, frames with and without source, allocation stacks', () => {
  const t = onlyTrace(`=================================================================
==48213==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000014 at pc 0x55d4c3a1b2c3 bp 0x7ffd sp 0x7ffc
READ of size 4 at 0x602000000014 thread T0
    #0 0x55d4c3a1b2c2 in ring_buffer_peek /home/dev/cring/src/ring.c:88:12
    #1 0x55d4c3a1b4f0 in main /home/dev/cring/src/main.c:21:5
    #2 0x7f3a2b829d8f in __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16
    #3 0x55d4c3a1a0d4 in _start (/home/dev/cring/build/cring+0x10d4) (BuildId: 4f2a9b)

0x602000000014 is located 0 bytes to the right of 4-byte region [0x602000000010,0x602000000014)
allocated by thread T0 here:
    #0 0x7f3a2bcb4887 in __interceptor_malloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:145
    #1 0x55d4c3a1b101 in ring_buffer_new /home/dev/cring/src/ring.c:30:20`);
  assert.equal(t.format, 'native');
  assert.deepEqual(signals(t, 'error-type'), ['AddressSanitizer']);
  assert.ok(signals(t, 'message').includes('heap-buffer-overflow'));
  assert.deepEqual(signals(t, 'path'), [
    '/home/dev/cring/src/ring.c',
    '/home/dev/cring/src/main.c',
  ]);
  assert.deepEqual(signals(t, 'function'), ['ring_buffer_peek', 'main', 'ring_buffer_new']);
  assert.equal(t.frames[0]!.column, 12);
});

test('UBSan and an uncaught C++ exception', () => {
  const ub = onlyTrace(
    "src/stats.cc:17:9: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'",
  );
  assert.equal(ub.format, 'native');
  assert.deepEqual(signals(ub, 'path'), ['src/stats.cc']);
  const ex = onlyTrace(`terminate called after throwing an instance of 'std::out_of_range'
  what():  vector::_M_range_check: __n (which is 5) >= this->size() (which is 3)`);
  assert.deepEqual(
    ex.errors.map((e) => e.type),
    ['std::out_of_range', 'what()'],
  );
});

test('lldb frames', () => {
  const t =
    onlyTrace(`* thread #1, queue = 'com.apple.main-thread', stop reason = EXC_BAD_ACCESS (code=1, address=0x0)
  * frame #0: 0x0000000100003f50 shop\`shop::Order::total(this=0x0000000000000000, n=3) const at order.cc:12:5
    frame #1: 0x0000000100003fa0 shop\`main at main.cc:5:3`);
  assert.deepEqual(signals(t, 'function'), ['shop.Order.total', 'main']);
  assert.deepEqual(signals(t, 'path'), ['order.cc', 'main.cc']);
});
