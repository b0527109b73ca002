// One JSON object per line on stderr: greppable in a log folder, parseable by
// any collector, and stdout stays free for a command's real output.
//
// Why not pino: this format (ISO time, level names, service, errors as their
// message) would take pino a level formatter, a timestamp function, base
// bindings minus pid and hostname, an error hook and a stderr destination:
// about as many lines as this file, plus ten dependencies, for no speed a
// service logging a few lines per job would notice.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LoggerOptions {
  /** Lowest level written; default CODESIFT_LOG_LEVEL or info. */
  level?: LogLevel;
  /** Where lines go; default stderr. */
  write?: (line: string) => void;
  now?: () => Date;
}

function levelFromEnv(): LogLevel {
  const v = process.env.CODESIFT_LOG_LEVEL?.trim().toLowerCase();
  return v === 'debug' || v === 'info' || v === 'warn' || v === 'error' ? v : 'info';
}

/** Errors serialise to {} by default; keep their message instead. */
function plain(value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}

export function formatLogLine(
  time: Date,
  level: LogLevel,
  service: string,
  msg: string,
  fields: LogFields = {},
): string {
  const extra: LogFields = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) extra[k] = plain(v);
  return JSON.stringify({ time: time.toISOString(), level, service, msg, ...extra });
}

export function createLogger(service: string, opts: LoggerOptions = {}): Logger {
  const min = ORDER[opts.level ?? levelFromEnv()];
  const write = opts.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const now = opts.now ?? (() => new Date());
  const at =
    (level: LogLevel) =>
    (msg: string, fields?: LogFields): void => {
      if (ORDER[level] >= min) write(formatLogLine(now(), level, service, msg, fields));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
