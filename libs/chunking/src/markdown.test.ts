import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { type Chunker, createChunker } from './chunker.js';
import { assertWellFormed, describe, lineOf, symbolFor } from './testing/chunk-assertions.js';

let chunker: Chunker;
before(async () => {
  chunker = await createChunker({ minChunkLines: 1 });
});

const README = `---
title: codesift
---

# codesift

Hybrid code search.

## Install

Run this:

\`\`\`sh
# not a heading: a shell comment
npm install codesift
\`\`\`

From source
-----------

Clone it, then build.

~~~
## also not a heading
~~~

### Requirements ###

Node 22.

Usage
=====

    # indented code, not a heading

Search with \`codesift query\`.
`;

test('sections follow ATX and setext headings, not code fences', () => {
  const r = chunker.chunkFile({ path: 'README.md', language: 'markdown', text: README });
  assertWellFormed(r, README);
  assert.deepEqual(
    r.chunks.map((c) => c.symbol),
    [
      null,
      'codesift',
      'codesift > Install',
      'codesift > From source',
      'codesift > From source > Requirements',
      'Usage',
    ],
    describe(r),
  );
  for (const c of r.chunks) assert.equal(c.kind, 'section');
  const install = r.chunks[2]!;
  assert.equal(install.startLine, lineOf(README, '## Install'));
  assert.equal(install.endLine, lineOf(README, '```', lineOf(README, 'npm install')));
  assert.equal(install.signature, '## Install');
  const fromSource = r.chunks[3]!;
  assert.equal(fromSource.startLine, lineOf(README, 'From source'));
  assert.ok(fromSource.content.includes('## also not a heading'));
  assert.equal(r.chunks[4]!.signature, '### Requirements ###');
  assert.equal(r.chunks[5]!.startLine, lineOf(README, 'Usage'));
});

test('headings become section symbols with parents', () => {
  const r = chunker.chunkFile({ path: 'README.md', language: 'markdown', text: README });
  assert.deepEqual(
    r.symbols.map((s) => `${s.qualifiedName} <- ${s.parent}`),
    [
      'codesift <- null',
      'codesift > Install <- codesift',
      'codesift > From source <- codesift',
      'codesift > From source > Requirements <- codesift > From source',
      'Usage <- null',
    ],
  );
  const install = symbolFor(r, 'codesift > Install');
  assert.equal(install.name, 'Install');
  assert.equal(install.kind, 'section');
  assert.equal(install.startLine, lineOf(README, '## Install'));
  // Setext `---` is level 2: From source is Install's sibling, ending it.
  assert.equal(install.endLine, lineOf(README, '```', lineOf(README, 'npm install')));
  // A heading's symbol spans its subsections.
  assert.equal(symbolFor(r, 'codesift > From source').endLine, lineOf(README, 'Node 22.'));
  assert.equal(symbolFor(r, 'codesift').endLine, lineOf(README, 'Node 22.'));
});

test('tiny sections merge under the first; large ones are windowed', async () => {
  const merging = await createChunker();
  const tiny = '# A\n\none\n\n## B\n\ntwo\n\n## C\n\nthree\n';
  const t = merging.chunkFile({ path: 't.md', language: 'markdown', text: tiny });
  assertWellFormed(t, tiny);
  assert.deepEqual(
    t.chunks.map((c) => [c.startLine, c.endLine, c.symbol]),
    [[1, 11, 'A']],
  );

  const body = Array.from({ length: 200 }, (_, i) => `Paragraph line ${i}.`).join('\n');
  const big = `# Big\n\n${body}\n\n# Next\n\nshort but not tiny\nline\nline\nline\nline\n`;
  const b = merging.chunkFile({ path: 'b.md', language: 'markdown', text: big });
  assertWellFormed(b, big);
  const windows = b.chunks.filter((c) => c.symbol === 'Big');
  assert.equal(windows.length, 3);
  for (let i = 1; i < windows.length; i++) {
    assert.equal(windows[i]!.startLine, windows[i - 1]!.endLine - 8 + 1);
  }
  assert.equal(b.chunks.at(-1)!.symbol, 'Next');
});

test('an unclosed fence swallows the rest of the file', () => {
  const text = '# Top\n\n```js\n# inside\n## still inside\n';
  const r = chunker.chunkFile({ path: 'u.md', language: 'markdown', text });
  assert.deepEqual(
    r.symbols.map((s) => s.qualifiedName),
    ['Top'],
  );
  assertWellFormed(r, text);
});
