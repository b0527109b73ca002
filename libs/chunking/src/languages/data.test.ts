import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { type Chunker, createChunker } from '../chunker.js';
import { assertWellFormed, symbolFor } from '../testing/chunk-assertions.js';
import { chunkOutline, symbolOutline } from '../testing/outline.js';

let chunker: Chunker;
before(async () => {
  // minChunkLines 1: every section keeps its own chunk, however small.
  chunker = await createChunker({ minChunkLines: 1 });
});

const MANIFEST = `# The web deployment.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.25
          resources:
            limits:
              cpu: 500m
---
apiVersion: v1
kind: Service
metadata:
  name: web
`;

test('yaml: keys holding mappings or lists are sections named by their key path', () => {
  const r = chunker.chunkFile({ path: 'deploy/web.yaml', language: 'yaml', text: MANIFEST });
  assertWellFormed(r, MANIFEST);
  assert.deepEqual(symbolOutline(r), [
    'section:metadata',
    'section:metadata.labels',
    'section:spec',
    'section:spec.template',
    'section:spec.template.spec',
    'section:spec.template.spec.containers',
    // Depth 5 is the deepest: `limits` stays inside `resources`.
    'section:spec.template.spec.containers.resources',
    'section:metadata',
  ]);
  assert.deepEqual(chunkOutline(r), [
    '1-3 block:null',
    '4-7 section:metadata',
    '8-17 section:spec',
    '18-20 block:null',
    '21-22 section:metadata',
  ]);
  const containers = symbolFor(r, 'spec.template.spec.containers');
  assert.equal(containers.name, 'containers');
  assert.equal(containers.parent, 'spec.template.spec');
  assert.equal(containers.signature, 'containers');
  assert.equal(containers.startLine, 12);
  assert.equal(containers.endLine, 17);
});

test('yaml: an oversized section is split along its keys', async () => {
  const small = await createChunker({ maxChunkLines: 6, minChunkLines: 1, overlapLines: 1 });
  const r = small.chunkFile({ path: 'deploy/web.yaml', language: 'yaml', text: MANIFEST });
  assertWellFormed(r, MANIFEST);
  const spec = r.chunks.filter((c) => c.symbol?.startsWith('spec'));
  assert.ok(
    spec.some((c) => c.symbol === 'spec.template.spec.containers'),
    chunkOutline(r).join(' '),
  );
});

const PYPROJECT = `# Package metadata.
[package]
name = "demo"

[tool.poetry.dependencies]
python = "^3.11"

[[bin]]
name = "x"
`;

test('toml: tables and arrays of tables are sections named by their key path', () => {
  const r = chunker.chunkFile({ path: 'pyproject.toml', language: 'toml', text: PYPROJECT });
  assertWellFormed(r, PYPROJECT);
  assert.deepEqual(symbolOutline(r), [
    'section:package',
    'section:tool.poetry.dependencies',
    'section:bin',
  ]);
  // A TOML table's node runs up to the next table, blank line included.
  assert.deepEqual(chunkOutline(r), [
    '1-4 section:package',
    '5-7 section:tool.poetry.dependencies',
    '8-9 section:bin',
  ]);
  const pkg = symbolFor(r, 'package');
  assert.equal(pkg.signature, '[package]');
  assert.equal(pkg.doc, 'Package metadata.');
  assert.equal(symbolFor(r, 'tool.poetry.dependencies').signature, '[tool.poetry.dependencies]');
  assert.equal(symbolFor(r, 'bin').signature, '[[bin]]');
});

const TERRAFORM = `# The web server.
resource "aws_instance" "web" {
  ami = "x"
  lifecycle {
    create_before_destroy = true
  }
}

variable "region" {
  default = "eu"
}
`;

test('hcl: blocks are sections named by their type and labels', () => {
  const r = chunker.chunkFile({ path: 'infra/main.tf', language: 'hcl', text: TERRAFORM });
  assertWellFormed(r, TERRAFORM);
  assert.deepEqual(symbolOutline(r), [
    'section:resource.aws_instance.web',
    'section:resource.aws_instance.web.lifecycle',
    'section:variable.region',
  ]);
  assert.deepEqual(chunkOutline(r), [
    '1-7 section:resource.aws_instance.web',
    '9-11 section:variable.region',
  ]);
  const web = symbolFor(r, 'resource.aws_instance.web');
  assert.equal(web.signature, 'resource "aws_instance" "web"');
  assert.equal(web.doc, 'The web server.');
  assert.equal(web.startLine, 2);
});

const PACKAGE = `{
  "name": "demo",
  "scripts": {
    "build": "tsc -b",
    "test": "node --test"
  },
  "files": ["dist"],
  "dependencies": { "left-pad": "1.3.0" }
}
`;

test('json: objects and arrays under a key are sections', () => {
  const r = chunker.chunkFile({ path: 'package.json', language: 'json', text: PACKAGE });
  assertWellFormed(r, PACKAGE);
  assert.deepEqual(symbolOutline(r), ['section:scripts', 'section:files', 'section:dependencies']);
  assert.deepEqual(chunkOutline(r), [
    '1-2 block:null',
    '3-6 section:scripts',
    '7-7 section:files',
    '8-9 section:dependencies',
  ]);
  assert.equal(symbolFor(r, 'scripts').signature, '"scripts"');
});
