#!/usr/bin/env node
// `npm run pack`: writes the installable `codesift` package into pack/ (or
// --out <dir>), one tarball that holds the CLI with every @codesift/*
// workspace package it needs bundled (their built dist/, the built-in
// embedding model included) and lists the third-party packages as ordinary
// dependencies at the workspace's exact versions, so that
//
//   npm install -g --ignore-scripts pack/codesift-<version>.tgz
//
// installs a working `codesift` anywhere. Run after the build (`npm run pack`
// builds first); the tarball's path is the last line printed.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stagePackage } from './pack/stage.mjs';
import { externalDependencies, readWorkspace, SCOPE, workspaceClosure } from './pack/workspace.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = '@codesift/cli';
/** The name `npm install -g` knows the CLI by (the workspace's own name is private). */
const PUBLISHED_NAME = 'codesift';

function options() {
  try {
    const { values } = parseArgs({ options: { out: { type: 'string' } }, strict: true });
    return { out: path.resolve(values.out ?? path.join(root, 'pack')) };
  } catch (err) {
    console.error(`pack: ${err.message}\nusage: node scripts/pack.mjs [--out <dir>]`);
    process.exit(2);
  }
}

/**
 * Fails unless the built-in model's ONNX file is built: the package carries
 * it, or every start of an installed codesift would convert the TF.js model
 * again in memory.
 */
async function requireModel(modelsDir) {
  const files = path.join(modelsDir, 'dist', 'use-lite-files.js');
  if (!existsSync(files)) {
    throw new Error('pack: libs/models is not built (run npm run build first)');
  }
  const { useLiteOnnxPath } = await import(files);
  const model = useLiteOnnxPath();
  if (!existsSync(model)) {
    throw new Error(`pack: ${path.relative(root, model)} is missing (run npm run build first)`);
  }
}

function workspaceOnly(dependencies = {}) {
  return Object.fromEntries(Object.entries(dependencies).filter(([dep]) => dep.startsWith(SCOPE)));
}

function stage(dir) {
  const packages = readWorkspace(root);
  const bundled = workspaceClosure(packages, CLI);
  const cli = packages.get(CLI);
  const rootManifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const dependencies = externalDependencies(packages, [CLI, ...bundled]);
  for (const name of bundled) dependencies[name] = packages.get(name).manifest.version;
  let files = stagePackage(cli.dir, cli.manifest, dir, {
    extra: ['bin'],
    overrides: {
      name: PUBLISHED_NAME,
      license: rootManifest.license,
      bin: cli.manifest.bin,
      engines: rootManifest.engines,
      dependencies,
      bundleDependencies: bundled,
    },
  });
  for (const name of bundled) {
    const { dir: pkgDir, manifest } = packages.get(name);
    // npm counts every dependency of a bundled package as bundled too, and
    // would then expect it inside the tarball instead of installing it: so a
    // bundled package names only its workspace dependencies, and the third-
    // party ones it imports resolve from the CLI's own, declared above.
    files += stagePackage(pkgDir, manifest, path.join(dir, 'node_modules', name), {
      overrides: { dependencies: workspaceOnly(manifest.dependencies) },
    });
  }
  copyFileSync(path.join(root, 'README.md'), path.join(dir, 'README.md'));
  return { bundled, files };
}

function npmPack(stageDir, out) {
  // No lifecycle scripts: the staged package has none, and its bundled
  // workspace packages were built by the workspace.
  const r = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], {
    cwd: stageDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`pack: npm pack exited with ${r.status ?? r.signal}`);
  const [info] = JSON.parse(r.stdout);
  return { file: path.join(out, info.filename), size: info.size, unpacked: info.unpackedSize };
}

const { out } = options();
const stageDir = mkdtempSync(path.join(tmpdir(), 'codesift-pack-'));
try {
  await requireModel(path.join(root, 'libs', 'models'));
  const { bundled, files } = stage(stageDir);
  mkdirSync(out, { recursive: true });
  // The folder holds only this build's tarball, so `npm install -g <out>/*.tgz` is unambiguous.
  for (const old of readdirSync(out)) if (old.endsWith('.tgz')) rmSync(path.join(out, old));
  const tarball = npmPack(stageDir, out);
  const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
  console.error(
    `pack: ${PUBLISHED_NAME} with ${bundled.length} bundled workspace packages, ${files} files, ${mb(tarball.size)} (${mb(tarball.unpacked)} unpacked)`,
  );
  console.log(tarball.file);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  rmSync(stageDir, { recursive: true, force: true });
}
