import { isCodesiftError } from '@codesift/core';
import { INDEX_HELP, indexCommand } from './commands/index-command.js';
import { type CliIO, EXIT, processIO, UsageError } from './io.js';
import { styleFor } from './ui/format.js';

const HELP = `codesift — code search for people and AI agents

Usage: codesift <command> [options]

Commands:
  index <dir>     index a directory (local mode, incremental)

Run 'codesift <command> --help' for a command's options.
`;

type Command = (argv: string[], io: CliIO) => Promise<number>;

const COMMANDS: Record<string, { run: Command; help: string }> = {
  index: { run: indexCommand, help: INDEX_HELP },
};

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
  const command = COMMANDS[name];
  const style = styleFor(io.stderr, io.env);
  if (!command) {
    io.stderr.write(`${style.red('error:')} unknown command '${name}'\n\n${HELP}`);
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError || isParseArgsError(err)) {
      io.stderr.write(`${style.red('error:')} ${(err as Error).message}\n\n${command.help}`);
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

function isParseArgsError(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
