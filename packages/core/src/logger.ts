import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Paths redacted from every log line: credentials and personal data must never reach log storage.
 * Fastify's request serializer logs headers only when asked; these cover our own objects too.
 */
export const REDACT_PATHS = [
  'password', '*.password', 'password_confirmation', '*.password_confirmation',
  'token', '*.token', 'apiKey', '*.apiKey', 'key', '*.key', 'email', '*.email', 'to', '*.to',
  'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]',
  'req.headers["x-clickhouse-key"]', 'headers.authorization', 'headers.cookie',
  'sessionSecret', 'databaseUrl', 'clickhouse.password', 'mail.resendApiKey', 'sqlApiKey', 'metricsToken',
];

export function loggerOptions(level: string, name?: string): LoggerOptions {
  return { level, name, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
}

export function createLogger(level = 'info', name?: string): Logger {
  return pino(loggerOptions(level, name));
}

type LogFn = (...args: unknown[]) => void;

/**
 * Fastify makes a child logger per request to bind its request id; with redaction configured
 * pino runs the redaction over the bindings for every child, for a logger most requests never
 * write to (a tracking beacon logs nothing when all goes well). This stand-in makes the real
 * child on first use. Used as Fastify's childLoggerFactory.
 */
class LazyChildLogger {
  private real?: Logger;
  constructor(private readonly parent: Logger, private readonly bindings: Record<string, unknown>, private readonly opts: object) {}
  private get logger(): Logger { return (this.real ??= this.parent.child(this.bindings, this.opts)); }
  get level(): string { return this.parent.level; }
  isLevelEnabled(level: string): boolean { return this.parent.isLevelEnabled(level); }
  fatal(...args: unknown[]): void { (this.logger.fatal as LogFn)(...args); }
  error(...args: unknown[]): void { (this.logger.error as LogFn)(...args); }
  warn(...args: unknown[]): void { (this.logger.warn as LogFn)(...args); }
  info(...args: unknown[]): void { if (this.parent.isLevelEnabled('info')) (this.logger.info as LogFn)(...args); }
  debug(...args: unknown[]): void { if (this.parent.isLevelEnabled('debug')) (this.logger.debug as LogFn)(...args); }
  trace(...args: unknown[]): void { if (this.parent.isLevelEnabled('trace')) (this.logger.trace as LogFn)(...args); }
  silent(): void {}
  child(bindings: Record<string, unknown>, opts?: object): Logger { return this.logger.child(bindings, opts); }
}

export function lazyChildLogger(parent: Logger, bindings: Record<string, unknown>, opts: object): Logger {
  // A route's own log level or serializers: rare, and the stand-in reads levels from the parent.
  if (Object.keys(opts).length > 0) return parent.child(bindings, opts);
  return new LazyChildLogger(parent, bindings, opts) as unknown as Logger;
}
