import type { FieldErrors } from '../http/errors.js';

/**
 * NIST SP 800-63B: at least 8 characters, no composition rules. The maximum only bounds the
 * scrypt input a request can make the server hash (a DoS guard), far above any passphrase.
 */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

/** Errors of a new password and its confirmation; empty when both are acceptable. */
export function newPasswordErrors(password: string, confirmation: string): FieldErrors {
  const errors: string[] = [];
  // Counted in code points, as a person counts characters (an emoji is one).
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) errors.push(`The password field must be at least ${MIN_PASSWORD_LENGTH} characters.`);
  if (length > MAX_PASSWORD_LENGTH) errors.push(`The password field must not be greater than ${MAX_PASSWORD_LENGTH} characters.`);
  if (password !== confirmation) errors.push('The password field confirmation does not match.');
  return errors.length ? { password: errors } : {};
}
