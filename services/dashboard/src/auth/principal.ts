/** Who is calling, and how they proved it. Every query is scoped to `accountId`. */
export interface Principal {
  accountId: string;
  /** Null for API keys, which belong to an account rather than a person. */
  userId: string | null;
  via: 'api_key' | 'token' | 'session';
  /** An API key's scope; a token or a session acts for its user with every right (`manage`). */
  scope: 'read' | 'manage';
  /** The key's or token's row id; null for a session. */
  credentialId: string | null;
}

/**
 * Per-route authentication, set as `config: { auth }`:
 * - `credential`: API key, auth token, or web session (the /api/dashboard routes);
 * - `session`: web session only; a key or token is refused (see the authentication rules in services/dashboard/docs/api.md, search test);
 * - `user`: a person, i.e. an auth token or a web session; an API key (the account's, nobody's) is refused (the token list);
 * - `none`: public, but a POST still gets the cross-origin check (login, logout).
 */
export type AuthMode = 'credential' | 'user' | 'session' | 'none';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on routes whose `config.auth` is `credential` or `session`. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    auth?: AuthMode;
    /** A browser page or form post: its errors are HTML pages, not JSON, unless JSON is asked for (error-handler.ts). */
    page?: boolean;
  }
}
