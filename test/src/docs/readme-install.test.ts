// README.md's Install section and its MCP client setups, checked by parsing
// them: the install commands name the real pack script and its output folder,
// each client's snippet has the keys that client reads and starts the
// installed `codesift` bin, and the arguments they pass really start the MCP
// server (the repository's own launcher stands in for the installed bin,
// which test/src/e2e/install-pack.test.ts installs and runs).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliBin, LOCAL_MCP_TOOLS, repoRoot } from '../support/cli.js';
import { connectStdio } from '../support/mcp-stdio.js';
import { markedBlock, readme, shellCommands } from '../support/readme.js';
import { writeTree } from '../support/tree.js';

const manifest = (dir: string) =>
  JSON.parse(readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
    engines?: Record<string, string>;
    bin?: Record<string, string>;
  };
const BIN_NAMES = Object.keys(manifest('services/cli').bin ?? {});

/** A server as a client starts it: the command and its arguments. */
interface ServerSpec {
  command: string;
  args: string[];
}

/** `claude mcp add [--transport stdio] [--scope s] <name> -- <command> [args...]`, checked word by word. */
function parseClaudeMcpAdd(words: string[]): ServerSpec & { name: string } {
  assert.deepEqual(words.slice(0, 3), ['claude', 'mcp', 'add']);
  const dashes = words.indexOf('--');
  assert.ok(dashes > 3, 'the server command follows " -- "');
  const options = words.slice(3, dashes - 1);
  const allowed: Record<string, string[]> = {
    '--transport': ['stdio'],
    '--scope': ['local', 'project', 'user'],
  };
  for (let i = 0; i < options.length; i += 2) {
    const [flag, value] = [options[i]!, options[i + 1]];
    assert.ok(allowed[flag]?.includes(value ?? ''), `claude mcp add: ${flag} ${value}`);
  }
  const [command, ...args] = words.slice(dashes + 1);
  return { name: words[dashes - 1]!, command: command!, args };
}

function onlyServer(servers: unknown): Record<string, unknown> {
  assert.equal(typeof servers, 'object');
  assert.deepEqual(Object.keys(servers as object), ['codesift']);
  return (servers as Record<string, Record<string, unknown>>).codesift!;
}

function parseJsonConfig(text: string, key: 'mcpServers' | 'servers'): Record<string, unknown> {
  const config = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(config), [key]);
  return onlyServer(config[key]);
}

describe('README.md: Install and the MCP client setups', () => {
  const doc = readme();
  const work = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-readme-')));
  after(() => rmSync(work, { recursive: true, force: true }));

  test('Install builds the tarball with npm run pack and installs it globally, Node 22 named', () => {
    const block = markedBlock(doc, 'install');
    assert.equal(block.lang, 'sh');
    const commands = shellCommands(block.text);
    assert.ok(
      commands.some((c) => c.join(' ') === 'npm run pack'),
      'the block runs npm run pack',
    );
    assert.match(manifest('.').scripts?.pack ?? '', /node scripts\/pack\.mjs$/);
    const install = commands.find((c) => c.slice(0, 3).join(' ') === 'npm install -g');
    assert.ok(install, 'the block has an npm install -g command');
    const targets = install.slice(3).filter((w) => !w.startsWith('-'));
    // scripts/pack.mjs writes into pack/ unless told otherwise.
    assert.deepEqual(targets, ['pack/*.tgz']);
    assert.equal(manifest('.').engines?.node, '>=22');
    const section = doc.slice(doc.indexOf('## Install'), doc.indexOf('## Quick start'));
    assert.match(section, /Node\.js 22 or newer/);
    assert.match(section, /not on the npm registry yet/);
  });

  const setups = {
    'claude code': () => {
      const block = markedBlock(doc, 'mcp setup: claude code');
      assert.equal(block.lang, 'sh');
      const commands = shellCommands(block.text);
      assert.equal(commands.length, 1);
      const spec = parseClaudeMcpAdd(commands[0]!);
      assert.equal(spec.name, 'codesift');
      return spec;
    },
    cursor: () => {
      const block = markedBlock(doc, 'mcp setup: cursor');
      assert.equal(block.lang, 'json');
      const server = parseJsonConfig(block.text, 'mcpServers');
      assert.deepEqual(Object.keys(server).sort(), ['args', 'command']);
      return server as unknown as ServerSpec;
    },
    'vs code': () => {
      const block = markedBlock(doc, 'mcp setup: vs code');
      assert.equal(block.lang, 'json');
      const server = parseJsonConfig(block.text, 'servers');
      assert.equal(server.type, 'stdio');
      assert.deepEqual(Object.keys(server).sort(), ['args', 'command', 'type']);
      return server as unknown as ServerSpec;
    },
  };

  /** The snippet's arguments with its placeholder for the repository replaced by `root`. */
  function argsFor(spec: ServerSpec, root: string): string[] {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's variable, literal in mcp.json
    const placeholders = ['/path/to/repo', '${workspaceFolder}'];
    assert.ok(
      spec.args.some((a) => placeholders.includes(a)),
      `the arguments name the repository as ${placeholders.join(' or ')}`,
    );
    return spec.args.map((a) => (placeholders.includes(a) ? root : a));
  }

  for (const [client, parse] of Object.entries(setups)) {
    test(`${client}: starts the installed codesift bin as an MCP server`, () => {
      const spec = parse();
      assert.ok(BIN_NAMES.includes(spec.command), `command ${spec.command} is the CLI's bin`);
      assert.equal(spec.args[0], 'mcp');
      assert.ok(spec.args.every((a) => typeof a === 'string'));
    });
  }

  test('the three setups pass the same arguments, and the real CLI serves with them', async () => {
    const root = path.join(work, 'repo');
    const argLists = Object.values(setups).map((parse) => argsFor(parse(), root));
    assert.deepEqual(argLists[1], argLists[0]);
    assert.deepEqual(argLists[2], argLists[0]);
    writeTree(root, { 'src/ledger.ts': 'export function postEntry() {}\n' });
    const { client, log } = await connectStdio(
      { command: process.execPath, args: [cliBin, ...argLists[0]!], cwd: work },
      'readme-test',
    );
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), LOCAL_MCP_TOOLS, log());
      const status = (await client.callTool({
        name: 'index_status',
        arguments: {},
      })) as CallToolResult;
      assert.equal((status.structuredContent as { root: string }).root, root, log());
    } finally {
      await client.close();
    }
  });
});
