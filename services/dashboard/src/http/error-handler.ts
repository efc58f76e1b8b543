import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DashboardError, Errors, type ErrorBody } from './errors.js';
import { wantsJson } from './origin.js';
import { errorPage } from '../html/error-page.js';
import { fieldErrors, type SchemaError } from './validation.js';

/** Fastify's own 4xx errors (body parsing, media type), mapped onto the dashboard's codes. */
function fromFastify(err: FastifyError): DashboardError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return Errors.malformedBody(err);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return Errors.unsupportedMediaType(err);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return Errors.payloadTooLarge(err);
  }
  // Other client errors from plugins (e.g. a body the JSON parser rejects) keep their status.
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return Errors.malformedBody(err);
  return null;
}

/** Any thrown value → the dashboard error it answers as (see the response and error rules in services/dashboard/docs/api.md). */
export function toDashboardError(err: unknown): DashboardError {
  if (err instanceof DashboardError) return err;
  const e = err as FastifyError & { validation?: SchemaError[]; validationContext?: string };
  if (e?.validation) {
    // A malformed id in the path names nothing: the same 404 as an unknown id.
    return e.validationContext === 'params' ? Errors.notFound() : Errors.validation(fieldErrors(e.validation));
  }
  return (e && typeof e === 'object' && fromFastify(e)) || Errors.internal(err);
}

export function errorBody(err: DashboardError): ErrorBody {
  return err.errors ? { success: false, message: err.message, errors: err.errors } : { success: false, message: err.message };
}

export function dashboardErrorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply) {
  const mapped = toDashboardError(err);
  if (mapped.statusCode >= 500) {
    req.log.error({ err: mapped.cause ?? err, code: mapped.code }, 'dashboard request failed');
  } else {
    req.log.info({ code: mapped.code, statusCode: mapped.statusCode }, 'dashboard request refused');
  }
  // A browser's page or form post gets a page it can show; a JSON client the JSON body.
  if (req.routeOptions.config?.page && !wantsJson(req)) return errorPage(req, reply, mapped);
  return reply.code(mapped.statusCode).send(errorBody(mapped));
}
