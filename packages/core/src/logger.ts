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
  'sessionSecret', 'databaseUrl', 'clickhouse.password', 'mail.resendApiKey', 'sqlApiKey',
];

export function loggerOptions(level: string, name?: string): LoggerOptions {
  return { level, name, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
}

export function createLogger(level = 'info', name?: string): Logger {
  return pino(loggerOptions(level, name));
}
