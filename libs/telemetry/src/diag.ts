// Where OpenTelemetry SDK diagnostics go: stderr, at OTEL_LOG_LEVEL.
import { type DiagLogger, DiagLogLevel, diag } from '@opentelemetry/api';

const LOG_LEVELS: Record<string, DiagLogLevel> = {
  none: DiagLogLevel.NONE,
  error: DiagLogLevel.ERROR,
  warn: DiagLogLevel.WARN,
  info: DiagLogLevel.INFO,
  debug: DiagLogLevel.DEBUG,
  verbose: DiagLogLevel.VERBOSE,
  all: DiagLogLevel.ALL,
};

/** SDK diagnostics at OTEL_LOG_LEVEL (default warn) on stderr. */
export function installDiagLogger(env: NodeJS.ProcessEnv): void {
  const level = LOG_LEVELS[env.OTEL_LOG_LEVEL?.trim().toLowerCase() ?? ''] ?? DiagLogLevel.WARN;
  diag.setLogger(stderrDiagLogger(), { logLevel: level, suppressOverrideMessage: true });
}

/**
 * SDK diagnostics (a failed export, a dropped span) go to stderr, never
 * stdout: `codesift mcp` speaks its protocol on stdout.
 */
function stderrDiagLogger(): DiagLogger {
  const write =
    (level: string) =>
    (message: string, ...args: unknown[]) =>
      process.stderr.write(
        `opentelemetry ${level}: ${[message, ...args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a)))].join(' ')}\n`,
      );
  return {
    error: write('error'),
    warn: write('warn'),
    info: write('info'),
    debug: write('debug'),
    verbose: write('verbose'),
  };
}
