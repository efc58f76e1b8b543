import type { Config } from '@chatlytics/core';
import type { FastifyBaseLogger } from 'fastify';
import type { ScryptCost } from './auth/passwords.js';
import type { CookiePolicy } from './auth/session-cookie.js';
import type { OriginPolicy } from './http/origin.js';
import type { AccountRepository } from './repositories/account-repository.js';
import type { ChatbotRepository } from './repositories/chatbot-repository.js';
import type { OrdersSettingsRepository } from './repositories/orders-settings-repository.js';
import type { CredentialRepository } from './repositories/credential-repository.js';
import type { LoginFailureRepository } from './repositories/login-failure-repository.js';
import type { SessionRepository } from './repositories/session-repository.js';
import type { UserRepository } from './repositories/user-repository.js';

/** What every route plugin of the dashboard may use; built once in app.ts. A feature's own stores are given to its plugins alone. */
export interface DashboardDeps {
  config: Config;
  log: FastifyBaseLogger;
  clock: () => Date;
  passwordCost: ScryptCost;
  cookies: CookiePolicy;
  appOrigin: string;
  /** appOrigin plus, without APP_URL, the loopback address in use (http/origin.ts). */
  origins: OriginPolicy;
  repos: {
    accounts: AccountRepository;
    chatbots: ChatbotRepository;
    ordersSettings: OrdersSettingsRepository;
    users: UserRepository;
    credentials: CredentialRepository;
    sessions: SessionRepository;
    loginFailures: LoginFailureRepository;
  };
}
