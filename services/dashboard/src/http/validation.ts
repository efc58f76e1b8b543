import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import Value from 'typebox/value';
import type { FieldErrors } from './errors.js';

/** The shape of one TypeBox validation error that we rely on. */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/**
 * Fastify's default Ajv stops at the first error; the response and error rules in services/dashboard/docs/api.md want every bad field listed,
 * so the dashboard compiles its schemas with TypeBox, which reports them all. Values are
 * converted first (form posts and query strings are all text: "10" must pass as an integer)
 * and defaults filled in, the way Ajv's coerceTypes/useDefaults would.
 */
export const dashboardValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema }) => {
  const check = Compile(schema);
  return (input: unknown) => {
    const value = Value.Default(schema, Value.Convert(schema, structuredClone(input)));
    if (check.Check(value)) return { value };
    return { error: check.Errors(value) as never };
  };
};

/** `chatbot_id` → `chatbot id`, as a person would write it in a sentence. */
const label = (field: string) => field.replace(/[._]/g, ' ');

function describe(field: string, err: SchemaError): string {
  const name = label(field);
  const limit = err.params.limit;
  switch (err.keyword) {
    case 'required':
      return `The ${name} field is required.`;
    case 'format':
      return err.params.format === 'uuid' ? `The ${name} field must be a valid UUID.`
        : err.params.format === 'email' ? `The ${name} field must be a valid email address.`
        : `The ${name} field format is invalid.`;
    case 'minLength':
      // A required text that is empty is "missing" to a user, not "too short".
      return limit === 1 ? `The ${name} field is required.` : `The ${name} field must be at least ${limit} characters.`;
    case 'maxLength':
      return `The ${name} field must not be greater than ${limit} characters.`;
    case 'minimum':
      return `The ${name} field must be at least ${limit}.`;
    case 'maximum':
      return `The ${name} field must not be greater than ${limit}.`;
    case 'type': {
      const type = err.params.type;
      const article = type === 'integer' || type === 'object' || type === 'array' ? 'an' : 'a';
      return `The ${name} field must be ${article} ${type}.`;
    }
    default:
      return `The ${name} field is invalid.`;
  }
}

/**
 * Turn schema errors into `{field: [messages]}` (see the response and error rules in services/dashboard/docs/api.md). Nested fields use dot paths
 * (`items.0.name`), as clients of Laravel-style APIs expect.
 */
export function fieldErrors(errors: readonly SchemaError[]): FieldErrors {
  const out: FieldErrors = {};
  const unions: string[] = [];
  const add = (field: string, message: string) => {
    const key = field || '_';
    const list = (out[key] ??= []);
    if (!list.includes(message)) list.push(message);
  };
  for (const err of errors) {
    const base = err.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
    if (err.keyword === 'required') {
      const missing = (err.params.requiredProperties ?? [err.params.missingProperty]) as string[];
      for (const prop of missing) {
        const field = base ? `${base}.${prop}` : prop;
        add(field, describe(field, err));
      }
      continue;
    }
    // A failed union is reported along with its branches' errors, which say more; it is only
    // used for a field that has no other message.
    if (err.keyword === 'anyOf' || err.keyword === 'oneOf') {
      unions.push(base);
      continue;
    }
    add(base, describe(base || 'body', err));
  }
  for (const base of unions) if (!out[base || '_']) add(base, describe(base || 'body', { keyword: 'invalid', instancePath: '', params: {} }));
  return out;
}
