import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from '../../parse/parse.js';
import { onlyTrace, signals } from '../../testing/traces.js';

test('bash and zsh errors name the script and line', () => {
  const t = onlyTrace('./scripts/deploy.sh: line 12: kubectl: command not found');
  assert.equal(t.format, 'shell');
  assert.deepEqual(signals(t, 'path'), ['scripts/deploy.sh']);
  assert.equal(t.frames[0]!.line, 12);
  assert.equal(t.errors[0]!.message, 'kubectl: command not found');
  const z = onlyTrace('deploy.zsh:7: command not found: kubectl');
  assert.deepEqual(signals(z, 'path'), ['deploy.zsh']);
  // An interactive shell's error names no script.
  assert.equal(onlyTrace('bash: line 1: foo: command not found').frames[0]!.external, true);
});

test('Lua: the error line, the traceback and its C frames', () => {
  const t =
    onlyTrace(`lua: cart.lua:12: attempt to perform arithmetic on a nil value (field 'price')
stack traceback:
	[C]: in function 'error'
	cart.lua:12: in function 'M.total'
	cart.lua:30: in method 'Account:deposit'
	...e/dev/shop/main.lua:5: in main chunk
	[C]: in ?`);
  assert.equal(t.format, 'lua');
  assert.deepEqual(signals(t, 'path'), ['cart.lua', 'e/dev/shop/main.lua']);
  assert.deepEqual(signals(t, 'function'), ['M.total', 'Account.deposit']);
  assert.ok(signals(t, 'message').includes('arithmetic'));
  assert.deepEqual(
    t.frames.map((f) => f.external),
    [false, true, false, false, false, true],
  );
});

test('prose that mentions lines and hashes is not a trace', () => {
  for (const q of [
    'why does the parser fail on line 12: of the config',
    '#1 priority (urgent) for the release',
    'see PR #42 (the fix) at the top',
    'in function total the price is nil',
  ]) {
    assert.equal(parseQuery(q).hasTrace, false, q);
  }
});
