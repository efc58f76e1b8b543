/**
 * Base class of every coded error. `statusCode` is what an HTTP layer answers;
 * `retriable` tells pipelines (consumer, mail queue) whether trying again can help.
 * `expose` is false for 5xx: their message never reaches a client.
 */
export class AppError extends Error {
  readonly code: string;
  readonly statusCode: number;
  readonly retriable: boolean;
  readonly expose: boolean;
  constructor(code: string, message: string, opts: { statusCode?: number; retriable?: boolean; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.statusCode = opts.statusCode ?? 500;
    this.retriable = opts.retriable ?? false;
    this.expose = this.statusCode < 500;
  }
}

export function isRetriable(err: unknown): boolean {
  return err instanceof AppError ? err.retriable : Boolean((err as { retriable?: boolean } | null)?.retriable);
}
