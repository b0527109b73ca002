import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

test('committed generated code matches what buf generates from proto/', () => {
  const r = spawnSync(
    process.execPath,
    [path.join(repoRoot, 'scripts', 'proto-generate.mjs'), '--check'],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /generated files match proto/);
});
