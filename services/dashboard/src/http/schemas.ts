import Type, { type TSchema } from 'typebox';

/** Error body of every dashboard error (see the response and error rules in services/dashboard/docs/api.md). */
export const ErrorResponse = Type.Object({
  success: Type.Literal(false),
  message: Type.String(),
  errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()), {
    description: 'Every invalid field with its messages (422 only)',
  })),
}, { description: 'Error' });

/** The error statuses a route can answer, for its response schema (and so for the OpenAPI docs). */
export function errorResponses<const S extends number>(...statuses: S[]): Record<S, typeof ErrorResponse> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorResponse])) as Record<S, typeof ErrorResponse>;
}

/** `{success: true, data}` wrapper of dashboard JSON responses (see the endpoint details in services/dashboard/docs/api.md). */
export const Success = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });

/**
 * A path id. Not `format: uuid` validated here as an error to report: an id that is not a UUID
 * names nothing, so the error handler answers it as 404 like any other unknown id.
 */
export const IdParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'UUID' }) });

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** OpenAPI security requirement of routes that take an API key, an auth token or a session. */
type SecurityRequirement = Record<string, string[]>;
export const ANY_CREDENTIAL_SECURITY: SecurityRequirement[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }, { sessionCookie: [] }];
export const SESSION_SECURITY: SecurityRequirement[] = [{ sessionCookie: [] }];

/**
 * Security schemes for the entry point's @fastify/swagger `openapi.components.securitySchemes`,
 * matching the names used by the routes' `security`.
 */
export const dashboardSecuritySchemes = {
  bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key (ck_…) or auth token (ct_…)' },
  apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API key (ck_…) or auth token (ct_…)' },
  sessionCookie: { type: 'apiKey', in: 'cookie', name: 'chatlytics_session', description: 'Web session (POST /login)' },
} as const;
