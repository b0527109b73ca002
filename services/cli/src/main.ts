import { isCodesiftError } from '@codesift/core';
import { closestName } from './command-line.js';
import type { CommandModule } from './commands/command.js';
import { type CliIO, EXIT, processIO, UsageError } from './io.js';
import { styleFor } from './ui/format.js';

/** Each command is its own module, loaded only when it runs. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  index: {
    summary: 'index a directory (local mode, incremental)',
    load: () => import('./commands/index-command.js'),
  },
  search: {
    summary: 'search the index for a question, identifier or pasted error',
    load: () => import('./commands/search-command.js'),
  },
  watch: {
    summary: 'keep the local index fresh: re-index files as they are saved, added, deleted',
    load: () => import('./commands/watch-command.js'),
  },
  serve: {
    summary: 'serve the local index over gRPC (search, index, symbols, health)',
    load: () => import('./commands/serve-command.js'),
  },
  mcp: {
    summary: 'MCP server for AI agents (stdio, or streamable HTTP with --http)',
    load: () => import('./commands/mcp-command.js'),
  },
  eval: {
    summary: 'measure retrieval quality on a query set with known answers',
    load: () => import('./commands/eval-command.js'),
  },
};

const HELP = `codesift — code search for people and AI agents

Usage: codesift <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`)
  .join('\n')}

Run 'codesift <command> --help' for a command's options.
`;

/** Commands that run under a root span when tracing is configured (see traced-run.ts). */
const TRACED = new Set(['search', 'index']);

/** Runs the CLI and returns the exit code; never throws. */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '-h' || name === '--help' || name === 'help') {
    io.stdout.write(HELP);
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write('codesift 0.1.0\n');
    return EXIT.ok;
  }
  const entry = COMMANDS[name];
  const style = styleFor(io.stderr, io.env);
  if (!entry) {
    const guess = closestName(name, Object.keys(COMMANDS));
    const didYouMean = guess === undefined ? '' : ` (did you mean ${guess}?)`;
    io.stderr.write(`${style.red('error:')} unknown command '${name}'${didYouMean}\n\n${HELP}`);
    return EXIT.usage;
  }
  const command = await entry.load();
  try {
    if (TRACED.has(name) && Object.keys(io.env).some((k) => k.startsWith('OTEL_'))) {
      const { runTraced } = await import('./traced-run.js');
      return await runTraced(name, io, () => command.run(rest, io));
    }
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`${style.red('error:')} ${err.message}\n\n${command.help}`);
      return EXIT.usage;
    }
    if (isCodesiftError(err)) {
      io.stderr.write(`${style.red('error:')} ${err.message}\n`);
      if (err.hint) io.stderr.write(`${style.dim('hint:')} ${err.hint}\n`);
      return EXIT.failed;
    }
    const e = err as Error;
    io.stderr.write(`${style.red('error:')} ${e?.message ?? String(err)}\n`);
    if (io.env.CODESIFT_DEBUG) io.stderr.write(`${e?.stack ?? ''}\n`);
    return EXIT.failed;
  }
}
