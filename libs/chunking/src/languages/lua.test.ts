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

const LUA = `local M = {}

--- Computes invoice totals.
-- @param net number
function M.total(net)
  return net * 1.2
end

--[[ Formats money
  with two decimals. ]]
local function format_money(amount)
  return string.format("%.2f", amount)
end

function M:scale(x)
  return self.v * x
end

return M
`;

test('lua: functions, local functions and module functions filed under their table', () => {
  const r = chunker.chunkFile({ path: 'lua/billing.lua', language: 'lua', text: LUA });
  assertWellFormed(r, LUA);
  assert.deepEqual(symbolOutline(r), [
    'function:M.total',
    'function:format_money',
    'function:M.scale',
  ]);
  assert.deepEqual(chunkOutline(r), [
    '1-1 block:null',
    '3-7 function:M.total',
    '9-13 function:format_money',
    '15-17 function:M.scale',
    '19-19 block:null',
  ]);
  const total = symbolFor(r, 'M.total');
  assert.equal(total.name, 'total');
  assert.equal(total.parent, 'M');
  assert.equal(total.signature, 'function M.total(net)');
  assert.equal(total.doc, 'Computes invoice totals.\n@param net number');
  const fmt = symbolFor(r, 'format_money');
  assert.equal(fmt.signature, 'local function format_money(amount)');
  assert.equal(fmt.doc, 'Formats money\nwith two decimals.');
  assert.equal(symbolFor(r, 'M.scale').signature, 'function M:scale(x)');
});
