// `codesift search` and `codesift index` (local or --remote) under one root
// span, exported when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER
// says so. main.ts loads this module only when some OTEL_* variable is set,
// so a plain run imports no telemetry code at all.
import { startTelemetry, withSpan } from '@codesift/telemetry';
import type { CliIO } from './io.js';

/** Runs `run` inside span `codesift <command>`; spans are flushed before it returns. */
export async function runTraced(
  command: string,
  io: CliIO,
  run: () => Promise<number>,
): Promise<number> {
  // One-shot commands push no metrics: the process is gone before a scrape.
  const telemetry = await startTelemetry({
    serviceName: 'codesift-cli',
    env: io.env,
    metrics: false,
  });
  if (!telemetry.enabled) return run();
  try {
    return await withSpan(`codesift ${command}`, { 'codesift.command': command }, async (span) => {
      const code = await run();
      span.setAttribute('process.exit.code', code);
      return code;
    });
  } finally {
    await telemetry.shutdown();
  }
}
