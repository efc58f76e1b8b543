import type { Validator } from 'typebox/compile';
import type { TLocalizedValidationError } from 'typebox/error';
import { Settings } from 'typebox/system';

/** Laravel-style field errors: `{ "data.items.0.quantity": ["The ... field must ..."] }`. */
export type FieldErrors = Record<string, string[]>;

/**
 * A hostile body can fail thousands of checks (e.g. 10,000 bad items); the client needs the
 * first few to fix its integration, not a response as large as its request.
 */
const MAX_REPORTED_ERRORS = 50;

/**
 * TypeBox stops collecting after a process-wide `maxErrors` (8): a union alone spends 4 of them
 * on its failed branches, so a 422 could miss fields. The limit is raised only for this
 * synchronous call (nothing else can run in between) and restored, leaving other users of
 * TypeBox in the process untouched. 200 still bounds the work a hostile body can cause.
 */
export function collectErrors(validator: Validator, value: unknown): TLocalizedValidationError[] {
  const previous = Settings.Get().maxErrors;
  Settings.Set({ maxErrors: 200 });
  try {
    return validator.Errors(value);
  } finally {
    Settings.Set({ maxErrors: previous });
  }
}

const fieldName = (instancePath: string) => instancePath.replace(/^\//, '').replaceAll('/', '.');

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

function schemaAt(root: unknown, schemaPath: string): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const segment of schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node !== null && typeof node === 'object' ? (node as Record<string, unknown>) : undefined;
}

function describe(root: unknown, error: TLocalizedValidationError, field: string): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type': return `The ${field} field must be ${article(String(p.type))}.`;
    case 'maxLength': return `The ${field} field must not be greater than ${p.limit} characters.`;
    case 'minLength': return `The ${field} field must be at least ${p.limit} characters.`;
    case 'pattern': return `The ${field} field format is invalid.`;
    case 'maxItems': return `The ${field} field must not have more than ${p.limit} items.`;
    case 'anyOf': {
      const custom = schemaAt(root, error.schemaPath)?.errorMessage;
      return typeof custom === 'string' ? `The ${field} field ${custom}.` : `The ${field} field is invalid.`;
    }
    default: return `The ${field} field is invalid.`;
  }
}

/**
 * Turns TypeBox's raw errors into one message list per field. A union reports every failed
 * branch plus an `anyOf` summary: the branches are dropped in favour of the summary, and the
 * summary itself is dropped when a deeper error (inside the branch that almost matched, e.g.
 * one item's quantity) says more precisely what is wrong.
 */
export function toFieldErrors(root: unknown, errors: TLocalizedValidationError[]): FieldErrors {
  const unionPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  const out: FieldErrors = {};
  let reported = 0;
  const add = (field: string, message: string) => {
    const list = (out[field] ??= []);
    if (!list.includes(message)) {
      list.push(message);
      reported++;
    }
  };
  for (const error of errors) {
    if (reported >= MAX_REPORTED_ERRORS) break;
    if (error.keyword === 'required') {
      const missing = (error.params as { requiredProperties?: string[] }).requiredProperties ?? [];
      const prefix = error.instancePath ? `${fieldName(error.instancePath)}.` : '';
      for (const name of missing) add(prefix + name, `The ${prefix + name} field is required.`);
      continue;
    }
    const path = error.instancePath;
    if (error.keyword === 'anyOf') {
      const hasDeeper = errors.some((e) => e.instancePath.startsWith(`${path}/`));
      if (hasDeeper) continue;
    } else if (unionPaths.has(path)) {
      continue;
    }
    const field = fieldName(path) || 'body';
    add(field, describe(root, error, field));
  }
  return out;
}
