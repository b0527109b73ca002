#!/usr/bin/env node
// Launcher kept in plain JavaScript that any Node runs: codesift needs Node 22
// (better-sqlite3's prebuilt binary), which `npm install` puts in the repo's
// node_modules as the `node` package. An older Node re-runs us with that one.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  let dir = here;
  let node22 = null;
  while (dir !== path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', 'node', 'bin', 'node');
    if (existsSync(candidate)) {
      node22 = candidate;
      break;
    }
    dir = path.dirname(dir);
  }
  if (!node22) {
    console.error(
      `codesift: Node ${process.versions.node} is too old; install Node 22 or run 'npm install' in the codesift repository`,
    );
    process.exit(1);
  }
  const r = spawnSync(node22, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}
// V8's compiled code for our modules and their dependencies is kept on disk
// (Node's compile cache, under the system temp directory unless
// NODE_COMPILE_CACHE says where): a short command such as `codesift search`
// otherwise spends much of its start compiling the same JavaScript each run.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
const { main } = await import('../dist/main.js');
process.exitCode = await main(process.argv.slice(2));
