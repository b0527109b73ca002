// codesift-worker <stage>: runs one pipeline stage until SIGINT/SIGTERM.
import { errorMessage } from '@codesift/core';
import { createLogger, runStage } from '@codesift/service-kit';
import { startTelemetry, type Telemetry } from '@codesift/telemetry';
import { STAGES } from './stages/index.js';

const USAGE = `usage: codesift-worker <stage>

stages: ${Object.keys(STAGES).join(', ')}

environment:
  NATS_URL                 NATS server (default nats://127.0.0.1:4222)
  NATS_USER, NATS_PASSWORD  NATS credentials, when the server requires them (or NATS_TOKEN)
  CODESIFT_HEALTH_PORT     serve GET /livez and /readyz on this port (CODESIFT_HEALTH_HOST,
                           default 0.0.0.0); ready = NATS answers and the consumers exist
  CODESIFT_STORE           writer: sqlite (default) or elastic (ES_URL, QDRANT_URL, optional
                           ES_USERNAME + ES_PASSWORD or ES_API_KEY, QDRANT_API_KEY,
                           CODESIFT_INDEX_NAME)
  CODESIFT_INDEX           SQLite index file (writer with sqlite; symbols answers from it,
                           read-only, when CODESIFT_SYMBOLS_INDEX is unset)
  CODESIFT_OPTIMIZE_IDLE_MS  writer: quiet time after the last write before the index is
                           optimized (FTS merge, HNSW graph saved); default 2000, and at
                           most once per 30 s while writes keep coming
  CODESIFT_EMBEDDER        none | builtin | auto (embedder; auto = Ollama if OLLAMA_HOST, else builtin)
  CODESIFT_EMBED_THREADS   builtin model: onnxruntime threads (default every core; set the CPU limit)
                           fixed:<ms> is a benchmark stand-in, not for real indexes: <ms> per
                           chunk, one batch at a time per process, hash vectors
  CODESIFT_SYMBOLS_INDEX   separate SQLite file for the symbols stage (optional)
  CODESIFT_SCAN_ROOTS      scanner: directories index jobs may name roots under (':'-separated,
                           ';' on Windows; relative roots resolve against the first; real paths
                           compared, so neither .. nor a symlink leads out); unset: the older
                           single CODESIFT_SCAN_ROOT, else the working directory
  CODESIFT_LOG_LEVEL       debug | info | warn | error
  OTEL_EXPORTER_OTLP_ENDPOINT  OTLP collector (e.g. http://jaeger:4318): export traces and
                           metrics as service codesift-<stage>; unset = off (OTEL_SERVICE_NAME,
                           OTEL_SDK_DISABLED, OTEL_EXPORTER_OTLP_PROTOCOL are honoured;
                           OTEL_TRACES_EXPORTER=console prints spans on stderr)
  CODESIFT_METRICS_PORT    serve Prometheus metrics at /metrics on this port (e.g. 9464)
  CODESIFT_METRICS_HOST    address of the metrics endpoint (default 127.0.0.1)
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
  let telemetry: Telemetry;
  try {
    telemetry = await startTelemetry({ serviceName: `codesift-${name}` });
  } catch (err) {
    log.error('failed to start telemetry', { error: errorMessage(err) });
    return 1;
  }
  if (telemetry.enabled) {
    log.info('tracing on', { otelService: telemetry.serviceName, endpoint: telemetry.tracesUrl });
  }
  if (telemetry.prometheusUrl) log.info('metrics on', { prometheus: telemetry.prometheusUrl });
  try {
    const running = await runStage(stage, { log });
    return await running.stopped;
  } catch (err) {
    log.error('failed to start', { error: errorMessage(err) });
    return 1;
  } finally {
    // The bin exits right after main returns: spans still batched go out now.
    await telemetry.shutdown();
  }
}
