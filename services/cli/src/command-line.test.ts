import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bridgeSwitch, closestName, optionHelp, parseCommandLine } from './command-line.js';
import { type CliIO, EXIT, UsageError } from './io.js';
import { main } from './main.js';

const COMMANDS = ['index', 'search', 'serve', 'mcp', 'eval'];

async function runMain(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const sink = (key: 'stdout' | 'stderr') =>
    ({
      write: (chunk: string) => {
        out[key] += chunk;
        return true;
      },
    }) as unknown as CliIO['stdout'];
  const io: CliIO = {
    stdout: sink('stdout'),
    stderr: sink('stderr'),
    env: { NO_COLOR: '1' },
    cwd: process.cwd(),
  };
  const code = await main(argv, io);
  return { code, ...out };
}

test('a mistyped flag is a usage error naming the nearest option', () => {
  const options = {
    limit: { type: 'string', value: '<n>', help: 'results' },
    'keyword-only': { type: 'boolean', help: 'no vectors' },
  } as const;
  assert.throws(
    () => parseCommandLine(['--limt', '3'], options),
    (err) =>
      err instanceof UsageError &&
      err.message === "unknown option '--limt' (did you mean --limit?)",
  );
  assert.throws(
    () => parseCommandLine(['--keyword'], options),
    /unknown option '--keyword' \(did you mean --keyword-only\?\)/,
  );
  assert.throws(
    () => parseCommandLine(['--frobnicate'], options),
    (err) => err instanceof UsageError && err.message === "unknown option '--frobnicate'",
  );
  assert.throws(() => parseCommandLine(['--limit'], options), UsageError);
  assert.throws(() => parseCommandLine(['x'], options, false), UsageError);
});

test('flags left out read as false; values and positionals as parseArgs reads them', () => {
  const parsed = parseCommandLine(['q', '--limit=3', 'r'], {
    limit: { type: 'string', help: 'results' },
    json: { type: 'boolean', help: 'json' },
  });
  assert.deepEqual({ ...parsed.values }, { limit: '3', json: false });
  assert.deepEqual(parsed.positionals, ['q', 'r']);
});

test('closestName: a unique prefix or a few edits, else nothing', () => {
  const known = ['index', 'search', 'serve', 'mcp', 'eval'];
  assert.equal(closestName('serch', known), 'search');
  assert.equal(closestName('indx', known), 'index');
  assert.equal(closestName('sear', known), 'search');
  assert.equal(closestName('frob', known), undefined);
  assert.equal(closestName('s', known), undefined);
});

test('the option list wraps descriptions beside the flags', () => {
  const text = optionHelp({
    limit: { type: 'string', short: 'n', value: '<n>', help: 'results to show' },
    explain: {
      type: 'boolean',
      help: 'print the query plan and each result score parts, keyword, vector, fused and boosts',
    },
  });
  assert.equal(
    text,
    [
      '  -n, --limit <n>         results to show',
      '  --explain               print the query plan and each result score parts,',
      '                          keyword, vector, fused and boosts',
    ].join('\n'),
  );
});

test('every command: an unknown flag exits 2 with a suggestion and the usage', async () => {
  for (const command of COMMANDS) {
    const r = await runMain([command, '--jsn']);
    assert.equal(r.code, EXIT.usage, command);
    assert.match(r.stderr, /error: unknown option '--jsn' \(did you mean --json\?\)/);
    assert.match(r.stderr, new RegExp(`Usage: codesift ${command}`));
  }
  const r = await runMain(['serch', 'x']);
  assert.equal(r.code, EXIT.usage);
  assert.match(r.stderr, /unknown command 'serch' \(did you mean search\?\)/);
});

/** `--name` and whether it takes a value, for each option line of a help text. */
function helpOptions(help: string): { flag: string; takesValue: boolean }[] {
  return [...help.matchAll(/^ {2}(?:-\w, )?(--[a-z][\w-]*)( <)?/gm)].map((m) => ({
    flag: m[1]!,
    takesValue: m[2] !== undefined,
  }));
}

test('every command: each option the help lists is one the parser accepts', async () => {
  for (const command of COMMANDS) {
    const help = (await runMain([command, '--help'])).stdout;
    const options = helpOptions(help);
    assert.ok(options.length >= 5, `${command}: ${options.length} options in the help`);
    for (const { flag, takesValue } of options) {
      // --help last: the line parses, then only the help prints.
      const r = await runMain([command, flag, ...(takesValue ? ['x'] : []), '--help']);
      assert.equal(r.code, EXIT.ok, `${command} ${flag}: ${r.stderr}`);
      assert.equal(r.stdout, help);
    }
  }
});

test("README's option tables name only options the command's help lists", async () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const sections = readme.split(/^## /m);
  let checked = 0;
  for (const command of COMMANDS) {
    const section = sections.find((s) => s.startsWith(`\`codesift ${command}\``));
    if (!section) continue;
    const help = (await runMain([command, '--help'])).stdout;
    const listed = new Set(helpOptions(help).map((o) => o.flag));
    const rows = section.split('\n').filter((line) => line.startsWith('|'));
    for (const [flag] of rows.join('\n').matchAll(/--[a-z][\w-]*/g)) {
      assert.ok(listed.has(flag), `README's codesift ${command} table names ${flag}`);
      checked++;
    }
  }
  assert.ok(checked >= 15, `${checked} README options checked`);
});

test('--bridge: on or off, anything else a usage error naming the value', async () => {
  assert.equal(bridgeSwitch('on'), true);
  assert.equal(bridgeSwitch('off'), false);
  assert.equal(bridgeSwitch(undefined), undefined);
  assert.throws(
    () => bridgeSwitch('yes'),
    (e) => e instanceof UsageError && /got yes/.test(e.message),
  );
  for (const args of [
    ['search', 'x'],
    ['eval', '--set', 'x.jsonl', '--repo', '.'],
  ]) {
    const [command, ...rest] = args as [string, ...string[]];
    const r = await runMain([command, '--bridge', 'maybe', ...rest]);
    assert.equal(r.code, EXIT.usage, command);
    assert.match(r.stderr, /--bridge must be on or off, got maybe/);
  }
});
