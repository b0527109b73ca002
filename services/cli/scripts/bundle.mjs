#!/usr/bin/env node
// The CLI's build step after `tsc -b`: dist/main.js and every @codesift/*
// module it imports, bundled into dist/bundle/ (one module per lazily
// imported part, third-party packages left to Node).
//
// Why: a `codesift search` loads ~200 of our modules, and Node resolves,
// links and compiles each one on every start (package scope lookups, stats,
// module jobs): about a quarter of a keyword-only search's CPU as a new
// process. The bundle is the same code in a dozen files.
//
// bin/codesift.js runs the bundle only while it is current: stamps.json
// lists the tsc build-info file of every package in the bundle, which
// `tsc -b` rewrites whenever it rebuilds that package; one newer than the
// list (a `tsc -b` of one package since) or gone sends the launcher back to
// dist/main.js, so a partial rebuild never runs stale code. (Checking every
// bundled module's time instead cost ~7 ms a start: 330 stats.)
// modules.json says which compiled modules each bundle file holds, for
// tests and people. The packed tarball ships neither (nothing rebuilds in
// an install). services/cli/turbo.json turns turbo's cache off for this
// package's build: a cache replay rewrites dist/ with new times in no set
// order, which could leave the stamps older than what they vouch for.
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { readWorkspace, SCOPE, workspaceClosure } from '../../../scripts/pack/workspace.mjs';

const cliDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(cliDir, '..', '..');
const dist = path.join(cliDir, 'dist');
const out = path.join(dist, 'bundle');

/** The directory `node_modules/<name>` Node finds walking up from `from`, real path, or null. */
function packageDirFrom(from, name) {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(candidate)) return realpathSync(candidate);
    if (dir === path.dirname(dir)) return null;
  }
}

/**
 * The workspace packages that stay outside the bundle, as imports Node
 * resolves from their own directories: those with a third-party dependency
 * that the bundle's directory would resolve to another copy (npm nests a
 * package whose version conflicts with the hoisted one), and every
 * workspace package those import, so that no module runs both bundled and
 * as its own file (two copies of @codesift/core would break `instanceof`).
 */
function externalPackages(packages) {
  const misplaced = [...packages.values()]
    .filter(({ dir, manifest }) =>
      Object.keys(manifest.dependencies ?? {}).some(
        (dep) => !dep.startsWith(SCOPE) && packageDirFrom(dir, dep) !== packageDirFrom(out, dep),
      ),
    )
    .map(({ manifest }) => manifest.name);
  return new Set(misplaced.flatMap((name) => [name, ...workspaceClosure(packages, name)]));
}

const external = externalPackages(readWorkspace(root));

/** Bundles our own packages (less `external`); every other bare import stays an import Node resolves at run time. */
const workspaceOnly = {
  name: 'workspace-only',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      const scoped = args.path.startsWith(SCOPE);
      const name = args.path
        .split('/')
        .slice(0, scoped ? 2 : 1)
        .join('/');
      return scoped && !external.has(name) ? undefined : { path: args.path, external: true };
    });
  },
};

/** The tsc build-info file of the package that compiled `input` (a path relative to cliDir). */
function buildInfoOf(input) {
  const [group, name] = path.relative(root, path.resolve(cliDir, input)).split(path.sep);
  const distDir = path.join(root, group, name, 'dist');
  const found = ['tsconfig.tsbuildinfo', '.tsbuildinfo']
    .map((f) => path.join(distDir, f))
    .find((f) => existsSync(f));
  if (!found) {
    throw new Error(
      `bundle: ${input} has no tsc build-info file in ${distDir} to tell a rebuild by`,
    );
  }
  return path.relative(cliDir, found);
}

// Written beside the old bundle and swapped in whole, so an interrupted
// build leaves the previous bundle (with its own lists) or none.
const tmp = mkdtempSync(path.join(dist, '.bundle-'));
try {
  const result = await esbuild.build({
    entryPoints: { main: path.join(dist, 'main.js') },
    outdir: tmp,
    absWorkingDir: cliDir, // the metafile's input paths are relative to it
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    // Class and function names appear in errors and logs; the bundle's
    // renaming of clashing top-level names must not change them.
    keepNames: true,
    metafile: true,
    logLevel: 'warning',
    plugins: [workspaceOnly],
  });
  const relative = (input) => path.relative(out, path.resolve(cliDir, input));
  const stamps = [...new Set(Object.keys(result.metafile.inputs).map(buildInfoOf))].map(relative);
  writeFileSync(path.join(tmp, 'stamps.json'), `${JSON.stringify({ stamps }, null, 1)}\n`);
  const outputs = Object.fromEntries(
    Object.entries(result.metafile.outputs).map(([file, o]) => [
      path.basename(file),
      Object.keys(o.inputs).map(relative),
    ]),
  );
  const modules = { external: [...external].sort(), outputs };
  writeFileSync(path.join(tmp, 'modules.json'), `${JSON.stringify(modules, null, 1)}\n`);
  rmSync(out, { recursive: true, force: true });
  chmodSync(tmp, 0o755); // mkdtemp's 0700 would keep the installed bundle from other users
  renameSync(tmp, out);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
