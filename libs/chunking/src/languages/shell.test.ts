import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { type Chunker, createChunker } from '../chunker.js';
import { assertWellFormed, symbolFor } from '../testing/chunk-assertions.js';
import { chunkOutline, symbolOutline } from '../testing/outline.js';

let chunker: Chunker;
before(async () => {
  // minChunkLines 1: every definition keeps its own chunk, however small.
  chunker = await createChunker({ minChunkLines: 1 });
});

const SH = `#!/usr/bin/env bash
set -euo pipefail

# Prints a greeting.
greet() {
  echo "hello $1"
}

function deploy_app {
  local target="$1"
  greet "$target"
}

deploy_app prod
`;

test('shell: both function forms, with their comments', () => {
  const r = chunker.chunkFile({ path: 'scripts/deploy.sh', language: 'shell', text: SH });
  assertWellFormed(r, SH);
  assert.deepEqual(symbolOutline(r), ['function:greet', 'function:deploy_app']);
  assert.deepEqual(chunkOutline(r), [
    '1-2 block:null',
    '4-7 function:greet',
    '9-12 function:deploy_app',
    '14-14 block:null',
  ]);
  const greet = symbolFor(r, 'greet');
  assert.equal(greet.signature, 'greet()');
  assert.equal(greet.doc, 'Prints a greeting.');
  assert.equal(greet.startLine, 5);
  assert.equal(symbolFor(r, 'deploy_app').signature, 'function deploy_app');
});
