#!/usr/bin/env node
// Regenerates libs/proto/src/gen from proto/ with buf and protoc-gen-es (both
// npm packages, so a clean checkout needs nothing else). With --check it
// generates into a temporary directory and fails if the committed code differs,
// which is how CI proves generation is reproducible.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'node_modules', '.bin');
const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` };
const check = process.argv.includes('--check');
const committed = path.join(root, 'libs', 'proto', 'src', 'gen');

function buf(args, cwd) {
  const r = spawnSync(path.join(bin, 'buf'), args, { cwd, env, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function listFiles(dir, base = dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) listFiles(p, base, out);
    else out.push(path.relative(base, p));
  }
  return out.sort();
}

if (!check) {
  buf(['generate'], path.join(root, 'proto'));
  console.log(
    `generated ${listFiles(committed).length} files into ${path.relative(root, committed)}`,
  );
  process.exit(0);
}

// Generate a copy of proto/ whose output lands in a scratch tree.
const scratch = mkdtempSync(path.join(tmpdir(), 'codesift-proto-'));
try {
  cpSync(path.join(root, 'proto'), path.join(scratch, 'proto'), { recursive: true });
  buf(['generate'], path.join(scratch, 'proto'));
  const fresh = path.join(scratch, 'libs', 'proto', 'src', 'gen');
  const a = listFiles(committed);
  const b = listFiles(fresh);
  const problems = [];
  if (a.join('\n') !== b.join('\n'))
    problems.push(`file lists differ:\n  committed: ${a}\n  generated: ${b}`);
  for (const f of b) {
    if (
      a.includes(f) &&
      readFileSync(path.join(committed, f), 'utf8') !== readFileSync(path.join(fresh, f), 'utf8')
    ) {
      problems.push(`content differs: ${f}`);
    }
  }
  if (problems.length) {
    console.error(
      `proto: generated code is stale; run npm run proto:generate\n${problems.join('\n')}`,
    );
    process.exit(1);
  }
  console.log(`proto: ${b.length} generated files match proto/`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
