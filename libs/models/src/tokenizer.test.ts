import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UseTokenizer } from './tokenizer.js';
import { useLiteVocabPath } from './use-lite-files.js';

const tokenizer = await UseTokenizer.fromFile(useLiteVocabPath());

// Expected ids come from the TF.js USE tokenizer (@energetic-ai/embeddings 0.2.0).
const reference: [string, number[]][] = [
  ['Hello world', [341, 4125, 311]],
  [
    'function parseArgs(argv) {\n  return argv.slice(2);\n}',
    [
      1470, 2348, 307, 5343, 143, 7, 234, 225, 143, 278, 52, 1723, 0, 30, 852, 11, 93, 143, 278, 6,
      7, 1329, 59, 6311, 1545, 0, 1814,
    ],
  ],
  // NFKC folds the ligature and full-width letters; "ï" is unknown.
  ['naïve café ﬁ ｆｕｌｌ', [1216, 0, 105, 976, 209, 1133, 1480, 650]],
  // vocab.json has a piece ":30" with score 30 and several null scores.
  ['time: 10:30 :)', [99, 57, 320, 4177, 658]],
  // Tabs are not separators; runs of unknown characters merge into one <unk>.
  ['日本 😀\t\tx', [30, 0, 30, 0, 152]],
  ['', []],
];

test('tokenizer matches the TF.js USE tokenizer', () => {
  for (const [text, ids] of reference)
    assert.deepEqual(tokenizer.encode(text), ids, JSON.stringify(text));
});

test('the trie, built under each first character as texts need it, tokenizes in any order as the reference', async () => {
  const fresh = await UseTokenizer.fromFile(useLiteVocabPath());
  for (const [text, ids] of [...reference].reverse())
    assert.deepEqual(fresh.encode(text), ids, JSON.stringify(text));
});

test('tokenizer stops at the model limit without changing the first tokens', () => {
  const code =
    'const value = compute(input, options);\n  if (!value) throw new Error("missing");\n'.repeat(
      40,
    );
  const all = tokenizer.encode(code, 100_000);
  assert.ok(all.length > 400);
  assert.deepEqual(tokenizer.encode(code), all.slice(0, 128));
  assert.deepEqual(tokenizer.encode(code, 7), all.slice(0, 7));
  // No spaces at all: no early boundary, still exact.
  const dense = 'a.b(c)[d]{e};'.repeat(200);
  assert.deepEqual(tokenizer.encode(dense), tokenizer.encode(dense, 100_000).slice(0, 128));
});

test('tokenizer handles a 3,000-character chunk in well under half a millisecond', () => {
  const chunk =
    'export function handle(req, res) {\n  const { id } = req.params;\n  return db.find(id);\n}\n'
      .repeat(40)
      .slice(0, 3000);
  for (let i = 0; i < 200; i++) tokenizer.encode(chunk); // warm-up
  const runs = 500;
  // CPU time, not wall time: other processes on a shared machine stretch the
  // wall clock, not the work this process does.
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < runs; i++) tokenizer.encode(chunk);
  const cpu = process.cpuUsage(cpu0);
  const perText = (cpu.user + cpu.system) / 1000 / runs;
  assert.ok(perText < 0.5, `${perText.toFixed(3)} ms of CPU per text`);
});
