import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from '../parse/parse.js';
import { signals, traces } from '../testing/traces.js';
import { externalFramePaths } from './trace.js';

const PYTHON = `I get this when running the indexer:

Traceback (most recent call last):
  File "/home/u/proj/codesift/cli.py", line 42, in main
    run(args)
  File "/home/u/proj/codesift/indexer.py", line 118, in build_index
    chunks = chunk_file(path)
             ^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/json/decoder.py", line 337, in decode
    obj, end = self.raw_decode(s, idx=_w(s, 0).end())
  File "/home/u/.venv/lib/python3.11/site-packages/yaml/reader.py", line 5, in load
    x = 1
ValueError: invalid literal for int() with base 10: 'abc'

Any idea?`;

test('a Python traceback reduces to paths, functions and the error', () => {
  const [t, ...rest] = traces(PYTHON);
  assert.ok(t);
  assert.equal(rest.length, 0);
  assert.equal(t.format, 'python');
  assert.equal(t.frames.length, 4);
  assert.deepEqual(
    t.frames.map((f) => f.external),
    [false, false, true, true],
  );
  assert.deepEqual(signals(t, 'path'), [
    '/home/u/proj/codesift/cli.py',
    '/home/u/proj/codesift/indexer.py',
  ]);
  assert.deepEqual(signals(t, 'function'), ['main', 'build_index']);
  assert.deepEqual(signals(t, 'error-type'), ['ValueError']);
  assert.deepEqual(t.errors, [
    {
      type: 'ValueError',
      message: "invalid literal for int() with base 10: 'abc'",
      start: t.errors[0]!.start,
      end: t.errors[0]!.end,
    },
  ]);
  const message = signals(t, 'message');
  assert.ok(message.includes('invalid') && message.includes('int') && message.includes('abc'));
  // Source lines under frames (`chunk_file`, `raw_decode`) are not signals.
  assert.ok(!t.terms.some((x) => x.value === 'chunk_file' || x.value === 'raw_decode'));
  const path = t.terms.find((x) => x.trace === 'path')!;
  assert.equal(path.line, 42);
  assert.equal(PYTHON.slice(path.start, path.end), '/home/u/proj/codesift/cli.py');
  // The prose around the trace is kept as ordinary terms.
  const q = parseQuery(PYTHON);
  assert.ok(q.terms.some((x) => x.value === 'indexer' && x.trace === undefined));
  assert.ok(q.terms.some((x) => x.value === 'idea' && x.trace === undefined));
});

const GO = `panic: runtime error: index out of range [5] with length 3

goroutine 1 [running]:
github.com/acme/codesift/internal/scanner.(*Walker).walkDir(0xc000010000, {0x4a1b20, 0x5})
	/home/u/src/codesift/internal/scanner/walk.go:87 +0x1d4
github.com/acme/codesift/internal/scanner.Scan.func1(...)
	/home/u/src/codesift/internal/scanner/scan.go:30
runtime.goexit()
	/usr/local/go/src/runtime/asm_amd64.s:1650 +0x1
main.main()
	/home/u/src/codesift/cmd/codesift/main.go:12 +0x25
exit status 2`;

test('a Go panic reduces to paths, functions and the panic message', () => {
  const all = traces(GO);
  assert.equal(all.length, 1);
  const t = all[0]!;
  assert.equal(t.format, 'go');
  assert.equal(t.start, 0);
  assert.equal(t.end, GO.length);
  assert.deepEqual(signals(t, 'path'), [
    '/home/u/src/codesift/internal/scanner/walk.go',
    '/home/u/src/codesift/internal/scanner/scan.go',
    '/home/u/src/codesift/cmd/codesift/main.go',
  ]);
  // Receivers and closures are reduced to what the repository defines.
  assert.deepEqual(signals(t, 'function'), ['Walker.walkDir', 'scanner.Scan', 'main.main']);
  assert.deepEqual(
    t.errors.map((e) => [e.type, e.message]),
    [['panic', 'runtime error: index out of range [5] with length 3']],
  );
  assert.ok(signals(t, 'message').includes('range'));
  // The runtime frame is external and addresses are gone.
  assert.equal(t.frames.find((f) => f.function === 'runtime.goexit')?.external, true);
  assert.ok(!t.terms.some((x) => x.value.startsWith('0x')));
  const q = parseQuery(GO);
  assert.equal(
    q.terms.every((x) => x.trace !== undefined),
    true,
  );
});

test('a JavaScript stack keeps app frames and drops node internals and dependencies', () => {
  const [t] = traces(`TypeError: Cannot read properties of undefined (reading 'length')
    at chunkFile (/app/libs/chunking/dist/chunker.js:41:23)
    at async Promise.all (index 0)
    at Object.<anonymous> (/app/services/cli/dist/main.js:10:5)
    at Module._compile (node:internal/modules/cjs/loader:1256:14)
    at /app/node_modules/foo/index.js:3:9`);
  assert.ok(t);
  assert.equal(t.format, 'javascript');
  assert.deepEqual(signals(t, 'path'), [
    '/app/libs/chunking/dist/chunker.js',
    '/app/services/cli/dist/main.js',
  ]);
  assert.deepEqual(signals(t, 'function'), ['chunkFile', 'Promise.all']);
  assert.deepEqual(signals(t, 'error-type'), ['TypeError']);
  assert.equal(t.frames[0]!.column, 23);
});

test('a Java stack trace maps classes to package paths', () => {
  const [t] = traces(`Exception in thread "main" java.lang.IllegalStateException: Index not ready
	at com.acme.search.IndexManager.open(IndexManager.java:88)
	at com.acme.search.IndexManager$1.lambda$run$0(IndexManager.java:120)
	at java.base/java.lang.Thread.run(Thread.java:833)
Caused by: java.io.FileNotFoundException: /data/index.db (No such file or directory)
	at com.acme.search.Store.<init>(Store.java:20)
	... 5 more`);
  assert.ok(t);
  assert.equal(t.format, 'java');
  assert.deepEqual(signals(t, 'path'), [
    'com/acme/search/IndexManager.java',
    'com/acme/search/Store.java',
  ]);
  assert.deepEqual(signals(t, 'function'), ['IndexManager.open', 'IndexManager.run', 'Store']);
  assert.deepEqual(signals(t, 'error-type'), ['IllegalStateException', 'FileNotFoundException']);
  assert.equal(t.frames[2]!.external, true);
});

test('a Rust panic gives its location, message and backtrace frames', () => {
  const [t] = traces(`thread 'main' panicked at src/chunker/split.rs:44:9:
called \`Option::unwrap()\` on a \`None\` value
stack backtrace:
   0: rust_begin_unwind
             at /rustc/abc/library/std/src/panicking.rs:645:5
   1: codesift::chunker::split::merge_small
             at ./src/chunker/split.rs:44:9
note: run with \`RUST_BACKTRACE=full\` for a verbose backtrace.`);
  assert.ok(t);
  assert.equal(t.format, 'rust');
  assert.deepEqual(signals(t, 'path'), ['src/chunker/split.rs']);
  assert.deepEqual(signals(t, 'function'), ['split::merge_small']);
  assert.deepEqual(
    t.errors.map((e) => e.message),
    ['called `Option::unwrap()` on a `None` value'],
  );
  assert.ok(signals(t, 'message').includes('Option::unwrap'));
});

test('error lines count alone only with a message', () => {
  const withMessage = parseQuery('Error: ENOENT: no such file or directory, open config.yaml');
  assert.equal(withMessage.hasTrace, true);
  // A bare error name is an identifier query, and prose about errors is prose.
  for (const q of ['ValueError', 'Error handling is broken', 'how are TypeErrors raised?']) {
    assert.equal(parseQuery(q).hasTrace, false, q);
  }
  assert.equal(parseQuery('ValueError').isIdentifierOnly, true);
});

test("an installed copy's innermost frame named as the repository's own becomes a user frame at the repository path", () => {
  const yaml = '/home/u/.venv/lib/python3.11/site-packages/yaml/reader.py';
  const json = '/usr/lib/python3.11/json/decoder.py';
  assert.deepEqual(externalFramePaths(PYTHON), [json, yaml]);
  const own = new Map([
    [yaml, 'lib/yaml/reader.py'],
    [json, 'lib/json/decoder.py'],
  ]);
  const [t] = parseQuery(PYTHON, { ownFrames: own }).nodes.filter((n) => n.kind === 'trace');
  assert.ok(t && t.kind === 'trace');
  // Only the innermost (Python prints it last): the frames above it are its callers.
  assert.deepEqual(
    t.frames.map((f) => f.external),
    [false, false, true, false],
  );
  assert.deepEqual(
    t.frames.map((f) => f.installed === true),
    [false, false, false, true],
  );
  assert.deepEqual(signals(t, 'path'), [
    '/home/u/proj/codesift/cli.py',
    '/home/u/proj/codesift/indexer.py',
    'lib/yaml/reader.py',
  ]);
  // Its file is the signal; its function (often the entry point called) is not, nor where it failed.
  assert.deepEqual(signals(t, 'function'), ['main', 'build_index']);
  assert.equal(t.failingFunction, 'build_index');
  // Without the repository's word the frame stays a dependency's.
  assert.deepEqual(signals(traces(PYTHON)[0]!, 'path').length, 2);
});
