import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import Value from 'typebox/value';

const INTEGER_TEXT = /^\s*-?[0-9]+\s*$/;

/**
 * Query-string validation of the statistics routes. Like the dashboard's compiler it reports
 * every bad field (TypeBox errors, same 422 body), but it converts only text that IS an
 * integer into one: TypeBox's Value.Convert would turn "7.5" into 7 and "0x10" into 16, and
 * The statistics definitions in services/dashboard/docs/statistics.md want a non-integer timeframe refused, not silently truncated.
 */
export const strictQueryValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema }) => {
  const check = Compile(schema);
  const properties = (schema as { properties?: Record<string, { type?: string }> }).properties ?? {};
  const integers = Object.keys(properties).filter((k) => properties[k].type === 'integer');
  return (input: unknown) => {
    const query: Record<string, unknown> = { ...(input as Record<string, unknown>) };
    for (const key of integers) {
      const v = query[key];
      // Anything else stays text, and the integer check then reports it.
      if (typeof v === 'string' && INTEGER_TEXT.test(v)) query[key] = Number(v);
    }
    const value = Value.Default(schema, query);
    if (check.Check(value)) return { value };
    return { error: check.Errors(value) as never };
  };
};
