import { AppError } from '@chatlytics/core';

/**
 * The bus could not make messages durable (Kafka unreachable or not acknowledging, the
 * embedded log failed to write/fsync, or the bus is closed). Retriable: ingest answers
 * 503 ANALYTICS_004 with Retry-After, and the client's retry lands once the bus is back.
 */
export class BusUnavailableError extends AppError {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('BUS_001', message, { statusCode: 503, retriable: true, cause: opts.cause });
    this.name = 'BusUnavailableError';
  }
}

/** A record of the embedded log failed its CRC check outside the recoverable torn tail. */
export class BusLogCorruptError extends AppError {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('BUS_002', message, { statusCode: 500, retriable: false, cause: opts.cause });
    this.name = 'BusLogCorruptError';
  }
}

/** The embedded log directory is already open (in this process or another one). */
export class BusInUseError extends AppError {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('BUS_003', message, { statusCode: 500, retriable: false, cause: opts.cause });
    this.name = 'BusInUseError';
  }
}

/** The bus was used against its rules (a second consumer on the embedded log, missing brokers, ...). */
export class BusUsageError extends AppError {
  constructor(message: string) {
    super('BUS_004', message, { statusCode: 500, retriable: false });
    this.name = 'BusUsageError';
  }
}

/** A replay gave up because its handler kept rejecting the same batch. */
export class BusReplayFailedError extends AppError {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('BUS_005', message, { statusCode: 500, retriable: true, cause: opts.cause });
    this.name = 'BusReplayFailedError';
  }
}
