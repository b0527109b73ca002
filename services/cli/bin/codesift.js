#!/usr/bin/env node
// Launcher kept in plain JavaScript that any Node runs: codesift needs Node 22
// (better-sqlite3's prebuilt binary), which `npm install` puts in the repo's
// node_modules as the `node` package. An older Node re-runs us with that one.
import { existsSync, readFileSync, statSync } from 'node:fs';
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
  // Loaded here only: child_process costs every start on Node 22 ~5 ms otherwise.
  const { spawnSync } = await import('node:child_process');
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
const { main } = await import(currentBundle() ?? '../dist/main.js');
process.exitCode = await main(process.argv.slice(2));

/**
 * The bundled CLI (dist/bundle/, written by the build's scripts/bundle.mjs:
 * the same code in a dozen modules instead of ~200, a faster start) when it
 * is current, else null. Current: every tsc build-info file listed in its
 * stamps.json (one per bundled package, rewritten by each `tsc -b` of it)
 * exists and is no newer than that list, so after a `tsc -b` of one package
 * the compiled modules run until the next full build. An installed package
 * ships the bundle without the list: nothing rebuilds there.
 * CODESIFT_NO_BUNDLE=1 runs the modules as compiled.
 */
function currentBundle() {
  if (process.env.CODESIFT_NO_BUNDLE === '1') return null;
  const dir = path.join(here, '..', 'dist', 'bundle');
  const bundle = new URL('../dist/bundle/main.js', import.meta.url).href;
  let listed;
  try {
    listed = statSync(path.join(dir, 'stamps.json'));
  } catch {
    return existsSync(path.join(dir, 'main.js')) ? bundle : null;
  }
  try {
    const { stamps } = JSON.parse(readFileSync(path.join(dir, 'stamps.json'), 'utf8'));
    for (const stamp of stamps) {
      if (statSync(path.join(dir, stamp)).mtimeMs > listed.mtimeMs) return null;
    }
  } catch {
    return null; // a stamp is gone (or the list is unreadable): not current
  }
  return bundle;
}
