import type { Config } from '@chatlytics/core';
import type { FastifyBaseLogger } from 'fastify';
import type { ScryptCost } from './auth/passwords.js';
import type { CookiePolicy } from './auth/session-cookie.js';
import type { OriginPolicy } from './http/origin.js';
import type { AccountRepository } from './repositories/account-repository.js';
import type { ChatbotRepository } from './repositories/chatbot-repository.js';
import type { ConversationRepository } from './analytics/conversation-repository.js';
import type { CredentialRepository } from './repositories/credential-repository.js';
import type { DataSourceRepository } from './data-sources/repository.js';
import type { LoginFailureRepository } from './repositories/login-failure-repository.js';
import type { SearchRepository } from './data-sources/search-repository.js';
import type { SessionRepository } from './repositories/session-repository.js';
import type { UserRepository } from './repositories/user-repository.js';
import type { RawContentStorage } from './data-sources/raw-content-storage.js';

/** What the dashboard's route plugins are given; built once in app.ts. */
export interface DashboardDeps {
  config: Config;
  log: FastifyBaseLogger;
  clock: () => Date;
  storage: RawContentStorage;
  passwordCost: ScryptCost;
  cookies: CookiePolicy;
  appOrigin: string;
  /** appOrigin plus, without APP_URL, the loopback address in use (auth/origin.ts). */
  origins: OriginPolicy;
  repos: {
    accounts: AccountRepository;
    chatbots: ChatbotRepository;
    conversations: ConversationRepository;
    dataSources: DataSourceRepository;
    search: SearchRepository;
    users: UserRepository;
    credentials: CredentialRepository;
    sessions: SessionRepository;
    loginFailures: LoginFailureRepository;
  };
}
