import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Errors } from '../http/errors.js';
import type { CredentialRepository } from '../repositories/credential-repository.js';
import type { SessionRepository } from '../repositories/session-repository.js';
import { isCrossOrigin, siteOrigin, type OriginPolicy } from '../http/origin.js';
import type { Principal } from './principal.js';
import { readSessionCookie } from './session-cookie.js';
import './principal.js';

export interface AuthPluginOptions {
  credentials: CredentialRepository;
  sessions: SessionRepository;
  /** The only origin allowed to post with the session cookie (APP_URL's, or the loopback one of a local start). */
  origins: OriginPolicy;
  clock: () => Date;
}

/**
 * The credential in the headers (see the authentication rules in services/dashboard/docs/api.md): `X-API-Key: <cred>` or `Authorization: Bearer <cred>`.
 * Query strings are never read: URLs end up in logs, proxies and browser history.
 */
export function headerCredential(req: FastifyRequest): string | null {
  const apiKey = req.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim()) return apiKey.trim();
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match ? match[1] : null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Authenticates in `onRequest`, before the body is read or validated: an anonymous caller
 * learns nothing about a route's validation rules (401 comes before 422).
 */
async function authPlugin(app: FastifyInstance, opts: AuthPluginOptions) {
  if (!app.hasRequestDecorator('principal')) app.decorateRequest('principal', null);

  const resolveSession = async (req: FastifyRequest): Promise<Principal | null> => {
    const sessionId = readSessionCookie(req);
    if (!sessionId) return null;
    const s = await opts.sessions.resolve(sessionId, opts.clock());
    return s && { accountId: s.accountId, userId: s.userId, via: 'session', scope: 'manage', credentialId: null };
  };

  app.addHook('onRequest', async (req) => {
    const mode = req.routeOptions.config?.auth;
    if (!mode) return;
    const unsafe = !SAFE_METHODS.has(req.method);
    if (mode === 'none') {
      // Login and logout act on the session cookie too: a cross-site form must not drive them.
      if (unsafe && isCrossOrigin(req, siteOrigin(req, opts.origins))) throw Errors.crossOrigin();
      return;
    }
    const credential = headerCredential(req);
    if (credential !== null) {
      if (mode === 'session') throw Errors.sessionRequired();
      const principal = await opts.credentials.resolve(credential, opts.clock());
      if (!principal) throw Errors.unauthenticated();
      if (principal.via === 'api_key') {
        if (mode === 'user') throw Errors.userRequired();
        // A read key reads (statistics and listings): anything that changes state needs `manage`.
        if (unsafe && principal.scope !== 'manage') throw Errors.readOnlyKey();
      }
      req.principal = principal;
      return;
    }
    const principal = await resolveSession(req);
    if (!principal) throw Errors.unauthenticated();
    if (unsafe && isCrossOrigin(req, siteOrigin(req, opts.origins))) throw Errors.crossOrigin();
    req.principal = principal;
  });
}

export const dashboardAuth = fp(authPlugin, { name: 'chatlytics-dashboard-auth', dependencies: ['@fastify/cookie'] });

/** The authenticated principal of a route with `config.auth` set; a programming error otherwise. */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new Error(`route ${req.routeOptions.url} reached without a principal: is config.auth set?`);
  return req.principal;
}
