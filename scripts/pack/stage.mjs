// Copies one built workspace package into the staging tree as it runs after
// install: its compiled JavaScript and built assets, and a manifest without
// what only the workspace uses (scripts, type declarations, test helpers).
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What tsc writes beside the code, which nothing needs at run time. */
const BUILD_ONLY = /\.(?:js\.map|d\.ts|d\.ts\.map|tsbuildinfo)$|^\.tsbuildinfo$/;

/**
 * Whether dist/<rel> belongs in the package. JavaScript is kept only when
 * its source still exists: `tsc -b` never deletes the output of a removed
 * source file, and such a leftover must not ship. Tests and the ./testing
 * helpers stay out; other files (the built-in model) are build products.
 */
function shipped(srcDir, rel) {
  const parts = rel.split(path.sep);
  // The CLI's bundle (services/cli/scripts/bundle.mjs) has no sources of its
  // own; its JSON lists tell the launcher whether a rebuild in the workspace
  // made it stale, which cannot happen in an install, and tests what it holds.
  if (parts[0] === 'bundle') return parts.at(-1).endsWith('.js');
  if (parts.includes('testing')) return false;
  const base = parts.at(-1);
  if (BUILD_ONLY.test(base) || base.endsWith('.test.js')) return false;
  if (!base.endsWith('.js')) return true;
  return existsSync(path.join(srcDir, rel.replace(/\.js$/, '.ts')));
}

function copyTree(from, to, keep, rel = '') {
  let copied = 0;
  for (const entry of readdirSync(path.join(from, rel), { withFileTypes: true })) {
    const child = path.join(rel, entry.name);
    if (entry.isDirectory()) {
      copied += copyTree(from, to, keep, child);
    } else if (entry.isFile() && keep(child)) {
      mkdirSync(path.dirname(path.join(to, child)), { recursive: true });
      copyFileSync(path.join(from, child), path.join(to, child));
      copied++;
    }
  }
  return copied;
}

/** The `exports` map with its type conditions dropped and every entry whose file did not ship removed. */
function shippedExports(exportsField, destDir) {
  if (!exportsField) return undefined;
  const kept = {};
  for (const [subpath, target] of Object.entries(exportsField)) {
    const file = typeof target === 'string' ? target : target.default;
    if (file && existsSync(path.join(destDir, file))) kept[subpath] = file;
  }
  return kept;
}

/**
 * Writes the package at `pkgDir` into `destDir`: dist/ (filtered), `extra`
 * directories copied whole (the CLI's bin/), and its manifest reduced to
 * what Node and npm read at install and run time, with `overrides` on top.
 */
export function stagePackage(pkgDir, manifest, destDir, { extra = [], overrides = {} } = {}) {
  const dist = path.join(pkgDir, 'dist');
  if (!existsSync(dist)) {
    throw new Error(`pack: ${manifest.name} has no dist/ (run npm run build first)`);
  }
  const src = path.join(pkgDir, 'src');
  const files = copyTree(dist, path.join(destDir, 'dist'), (rel) => shipped(src, rel));
  for (const dir of extra) copyTree(path.join(pkgDir, dir), path.join(destDir, dir), () => true);
  const runtime = {
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    type: manifest.type,
    main: manifest.main,
    exports: shippedExports(manifest.exports, destDir),
    dependencies: manifest.dependencies,
    ...overrides,
  };
  writeFileSync(path.join(destDir, 'package.json'), `${JSON.stringify(runtime, null, 2)}\n`);
  return files;
}
