import { DashboardError } from '../errors.js';

/** The user-facing texts of the flow; the first two are the documented texts (see the password reset rules in services/dashboard/README.md), verbatim. */
export const RESET_MESSAGES = {
  linkRequested: "If an account with that email exists, we've sent a password reset link.",
  linkSent: 'Password reset link has been sent to your email.',
  passwordReset: 'Your password has been reset.',
  invalidToken: 'This password reset token is invalid.',
  alreadyLoggedIn: 'You are already logged in.',
  tooManyAttempts: 'Too Many Attempts.',
} as const;

/** Coded errors of the password reset routes (the dashboard's error handler answers them). */
export const ResetErrors = {
  /** POST /forgot-password with a live session (see the authentication rules in services/dashboard/README.md: guests only). */
  guestOnly: () => new DashboardError('DASHBOARD_013', RESET_MESSAGES.alreadyLoggedIn, 403),
  rateLimited: () => new DashboardError('DASHBOARD_014', RESET_MESSAGES.tooManyAttempts, 429),
  /** Unknown, expired, used, or another e-mail's token: one answer, so none of them can be told apart. */
  invalidToken: () => new DashboardError('DASHBOARD_015', RESET_MESSAGES.invalidToken, 422, {
    errors: { email: [RESET_MESSAGES.invalidToken] },
  }),
} as const;
