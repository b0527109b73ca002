#!/usr/bin/env node
// Runs every compiled test file of the monorepo in one `node --test` run, so
// there is a single summary at the end. Pass paths or substrings to filter:
//   node scripts/run-tests.mjs stores chunking
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2);

function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (e.name === 'node_modules') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith('.test.js')) out.push(p);
  }
}

const files = [];
for (const group of ['libs', 'services']) {
  const base = path.join(root, group);
  for (const pkg of readdirSync(base)) {
    if (statSync(path.join(base, pkg)).isDirectory()) walk(path.join(base, pkg, 'dist'), files);
  }
}
walk(path.join(root, 'test', 'dist'), files);

const selected = filters.length
  ? files.filter((f) => filters.some((flt) => path.relative(root, f).includes(flt)))
  : files;
if (selected.length === 0) {
  console.error('run-tests: no compiled test files found (did the build run?)');
  process.exit(1);
}
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(
    `run-tests: Node ${process.versions.node} is too old; codesift needs Node 22 (npm install provides it)`,
  );
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--test', '--test-concurrency=2', '--test-timeout=300000', ...selected],
  { stdio: 'inherit', cwd: root },
);
process.exit(result.status ?? 1);
