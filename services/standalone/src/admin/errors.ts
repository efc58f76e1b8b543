import { DashboardError } from '@chatlytics/dashboard';
import type { CommandName } from '../cli/spec.js';

/** Coded errors of POST /api/admin/cli (services/standalone/README.md); the dashboard's JSON error body. */
export const AdminErrors = {
  unauthenticated: () => new DashboardError('ADMIN_001', 'Unauthenticated.', 401),
  /** The command's own refusal (the message the CLI prints when it runs the command itself). */
  refused: (message: string) => new DashboardError('ADMIN_002', message, 422),
  invalidFixture: (problems: string[]) => new DashboardError('ADMIN_003', 'invalid fixture', 422, { errors: { fixture: problems } }),
} as const;

/**
 * Commands the running server does not run for a CLI. `replay` re-publishes from the event bus,
 * whose embedded log belongs to the server's consumer: it waits for the server to stop.
 */
export const REMOTE_REFUSED: ReadonlySet<CommandName> = new Set(['replay']);
