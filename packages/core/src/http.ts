export { createHttpServer, closeOnSignals, exitOnStartupError, loadConfigOrExit, LISTEN_BACKLOG, type HttpServerOptions } from './http-server.js';
export { runService, type ServiceContext, type ServiceParts, type ServiceSpec } from './service-entry.js';
