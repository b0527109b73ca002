// codesift-worker <stage>: runs one pipeline stage until SIGINT/SIGTERM.
import { errorMessage } from '@codesift/core';
import { createLogger, runStage } from '@codesift/service-kit';
import { STAGES } from './stages/index.js';

const USAGE = `usage: codesift-worker <stage>

stages: ${Object.keys(STAGES).join(', ')}

environment:
  NATS_URL                 NATS server (default nats://127.0.0.1:4222)
  CODESIFT_INDEX           SQLite index file (writer)
  CODESIFT_EMBEDDER        none | builtin | auto (embedder; auto = Ollama if OLLAMA_HOST, else builtin)
                           fixed:<ms> is a benchmark stand-in, not for real indexes: <ms> per
                           chunk, one batch at a time per process, hash vectors
  CODESIFT_SYMBOLS_INDEX   separate SQLite file for the symbols stage (optional)
  CODESIFT_LOG_LEVEL       debug | info | warn | error
`;

/** Returns the process exit code: 0 after a clean stop, 1 on failure, 2 on a bad command line. */
export async function main(argv: string[]): Promise<number> {
  const name = argv[0];
  if (!name || name === '-h' || name === '--help') {
    process.stderr.write(USAGE);
    return name ? 0 : 2;
  }
  const stage = STAGES[name];
  if (!stage || argv.length > 1) {
    process.stderr.write(
      `codesift-worker: unknown stage or extra arguments: ${argv.join(' ')}\n\n${USAGE}`,
    );
    return 2;
  }
  const log = createLogger(name);
  try {
    const running = await runStage(stage, { log });
    return await running.stopped;
  } catch (err) {
    log.error('failed to start', { error: errorMessage(err) });
    return 1;
  }
}
