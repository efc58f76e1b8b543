import { badIdentifier } from './errors.js';

/**
 * Table and database names cannot be bound as {name:Type} parameters, so the few places
 * that must put one into SQL accept only plain identifiers (no quoting games at all).
 */
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function assertDatabase(name: string): string {
  if (!IDENT.test(name)) throw badIdentifier('database name', name);
  return name;
}

/** `table` or `database.table`. */
export function assertTable(name: string): string {
  const parts = name.split('.');
  if (parts.length > 2 || !parts.every((p) => IDENT.test(p))) throw badIdentifier('table name', name);
  return name;
}

export const isIdentifier = (name: string) => IDENT.test(name);

/** An INSERT's column list; plain identifiers only, like table names. */
export function assertColumns(names: readonly string[]): string {
  if (names.length === 0 || !names.every((n) => IDENT.test(n))) throw badIdentifier('column list', names.join(','));
  return names.join(', ');
}
