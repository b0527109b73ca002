// The workspace as the packer sees it: every package of libs/ and services/
// by name, the @codesift/* packages a package needs (transitively), and the
// third-party dependencies those packages declare, merged into one set.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const SCOPE = '@codesift/';

/** An exact version (what every workspace manifest pins), so the install gets what the tests ran. */
const EXACT = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** name -> { dir, manifest } for each package directory of libs/ and services/. */
export function readWorkspace(root) {
  const packages = new Map();
  for (const group of ['libs', 'services']) {
    for (const entry of readdirSync(path.join(root, group), { withFileTypes: true })) {
      const dir = path.join(root, group, entry.name);
      const file = path.join(dir, 'package.json');
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      packages.set(manifest.name, { dir, manifest });
    }
  }
  return packages;
}

/** The workspace packages `name` depends on, directly or through one another, sorted. */
export function workspaceClosure(packages, name) {
  const seen = new Set();
  const visit = (from) => {
    const pkg = packages.get(from);
    if (!pkg) throw new Error(`pack: ${from} is not a package of libs/ or services/`);
    for (const dep of Object.keys(pkg.manifest.dependencies ?? {})) {
      if (!dep.startsWith(SCOPE) || seen.has(dep)) continue;
      seen.add(dep);
      visit(dep);
    }
  };
  visit(name);
  return [...seen].sort();
}

/**
 * The third-party dependencies of the given packages, one exact version each.
 * They become the packed CLI's own dependencies, installed beside the bundled
 * workspace packages, which resolve them from there.
 */
export function externalDependencies(packages, names) {
  const merged = new Map();
  for (const name of names) {
    for (const [dep, spec] of Object.entries(packages.get(name).manifest.dependencies ?? {})) {
      if (dep.startsWith(SCOPE)) continue;
      if (!EXACT.test(spec)) {
        throw new Error(`pack: ${name} depends on ${dep}@${spec}; pin an exact version`);
      }
      const other = merged.get(dep);
      if (other && other.spec !== spec) {
        throw new Error(
          `pack: ${other.by} wants ${dep}@${other.spec} but ${name} wants ${dep}@${spec}; one install can hold only one`,
        );
      }
      merged.set(dep, { spec, by: name });
    }
  }
  return Object.fromEntries(
    [...merged].sort(([a], [b]) => (a < b ? -1 : 1)).map(([d, v]) => [d, v.spec]),
  );
}
