// docs/ARCHITECTURE.md checked against the tree: its package table must list
// exactly the directories of libs/ and services/ that have a package.json
// (with their package names), and its work-queue table exactly the queues of
// WORK_QUEUES (with their producer and durable consumer), and every file or
// module it names must exist. The lists come from the repository and the
// code, never from a copy here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { WORK_QUEUES } from '@codesift/bus';
import { repoRoot } from '../support/cli.js';

const DOC = 'docs/ARCHITECTURE.md';
/** A path from the repository root, as the doc writes one. */
const REPO_PATH =
  /^(libs|services|docs|proto|test|deploy|scripts)\/|^(README\.md|Dockerfile|docker-compose\.yml)$/;

/** The cells of the table rows between `<!-- begin NAME -->` and `<!-- end NAME -->`, backticks dropped. */
function tableRows(markdown: string, name: string): string[][] {
  const begin = `<!-- begin ${name} -->`;
  const end = `<!-- end ${name} -->`;
  const from = markdown.indexOf(begin);
  const to = markdown.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${DOC} has no "${begin}" ... "${end}" section`);
  return markdown
    .slice(from + begin.length, to)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, line.trimEnd().endsWith('|') ? line.trimEnd().length - 1 : undefined)
        .split('|')
        .map((cell) => cell.trim().replaceAll('`', '')),
    )
    .slice(2); // the header and the |---| line
}

function packageDirectories(): Map<string, string> {
  const found = new Map<string, string>();
  for (const group of ['libs', 'services']) {
    for (const entry of readdirSync(path.join(repoRoot, group), { withFileTypes: true })) {
      const manifest = path.join(repoRoot, group, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(manifest)) continue;
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string };
      found.set(`${group}/${entry.name}`, name);
    }
  }
  return found;
}

const sorted = <T>(entries: Iterable<[string, T]>) =>
  [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe(DOC, () => {
  const doc = readFileSync(path.join(repoRoot, DOC), 'utf8');

  test('lists every package of libs/ and services/ once, with its name, and nothing else', () => {
    const rows = tableRows(doc, 'packages');
    const listed = rows.map(([dir, name]) => [dir!, name!] as [string, string]);
    const dirs = listed.map(([dir]) => dir);
    assert.deepEqual(
      dirs.filter((d, i) => dirs.indexOf(d) !== i),
      [],
      'a directory listed twice',
    );
    assert.deepEqual(
      sorted(listed),
      sorted(packageDirectories()),
      `the package table of ${DOC} (directory, package) differs from libs/ and services/`,
    );
    for (const row of rows) assert.ok(row[2], `${row[0]}: say what the package owns`);
  });

  test('lists every work queue of WORK_QUEUES with its producer and durable consumer', () => {
    const listed = tableRows(doc, 'work queues').map(
      ([queue, producer, durable]) => [queue!, `${producer} -> ${durable}`] as [string, string],
    );
    const actual = Object.entries(WORK_QUEUES).map(
      ([queue, def]) => [queue, `${def.producer} -> ${def.durable}`] as [string, string],
    );
    assert.deepEqual(
      sorted(listed),
      sorted(actual),
      `the work-queue table of ${DOC} (queue, producer -> consumer) differs from WORK_QUEUES`,
    );
  });

  test('every file and module it names exists', () => {
    const packageSources = [...packageDirectories().keys()].map((dir) => path.join(dir, 'src'));
    const missing: string[] = [];
    for (const [, token] of doc.matchAll(/`([^`\s]+)`/g)) {
      const name = token!.replace(/\/$/, '');
      if (/[<*…]/.test(name)) continue; // a pattern or a placeholder, not a path
      if (REPO_PATH.test(name)) {
        if (!existsSync(path.join(repoRoot, name))) missing.push(name);
      } else if (name.endsWith('.ts')) {
        // A module named by its path inside a package's src/ (e.g. planning/rescore.ts).
        if (!packageSources.some((src) => existsSync(path.join(repoRoot, src, name)))) {
          missing.push(name);
        }
      }
    }
    assert.deepEqual(missing, [], `${DOC} names files that do not exist`);
  });

  test('the README links to it', () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    assert.match(readme, /\(docs\/ARCHITECTURE\.md\)/);
  });
});
