import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { readConfigFile } from './config-file.js';

test('readConfigFile gives the JSON object and refuses anything else with the file named', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'codesift-config-file-'));
  const file = path.join(dir, '.codesift.json');
  try {
    writeFileSync(file, JSON.stringify({ search: { fusion: 'rrf' }, llm: {} }));
    assert.deepEqual(readConfigFile(file), { search: { fusion: 'rrf' }, llm: {} });
    for (const text of ['[1, 2]', 'null', '"text"']) {
      writeFileSync(file, text);
      assert.throws(
        () => readConfigFile(file),
        /\.codesift\.json: the file must hold a JSON object/,
      );
    }
    writeFileSync(file, '{ not json');
    assert.throws(() => readConfigFile(file), /cannot read .*\.codesift\.json: /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
