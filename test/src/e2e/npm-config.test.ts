// The project's npm setup as a contributor meets it: npm reads the project
// config without "Unknown project config" warnings (which it would print on
// every npm command), and onnxruntime-node's install script, which downloads
// GPU libraries and fails without network, stays off under every npm: npm 11
// through package.json allowScripts, older npm (the Docker image's) and CI
// through the installer's own ONNXRUNTIME_NODE_INSTALL switch.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../support/cli.js';

const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

test('npm reads the project config without warnings; the GPU download stays off', () => {
  const r = spawnSync('npm', ['pkg', 'get', 'name'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), 'codesift-monorepo');
  assert.doesNotMatch(r.stderr, /Unknown project config/);
  if (existsSync(path.join(repoRoot, '.npmrc'))) {
    assert.doesNotMatch(read('.npmrc'), /onnxruntime/);
  }
  const pkg = JSON.parse(read('package.json')) as {
    allowScripts: Record<string, boolean>;
    packageManager: string;
  };
  assert.equal(pkg.allowScripts['onnxruntime-node'], false);
  assert.match(pkg.packageManager, /^npm@(1[1-9]|[2-9]\d)\./, 'an npm that knows allowScripts');
  assert.match(read('.ci/run'), /^export ONNXRUNTIME_NODE_INSTALL=skip$/m);
  assert.match(read('Dockerfile'), /^ENV ONNXRUNTIME_NODE_INSTALL=skip$/m);
});
