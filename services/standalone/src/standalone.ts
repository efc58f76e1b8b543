import { createLogger, acquireDataDirLock } from '@chatlytics/core';
import { closeOnSignals, exitOnStartupError, LISTEN_BACKLOG, loadConfigOrExit } from '@chatlytics/core/http';
import { buildStandalone } from './standalone-app.js';

// Entry point of `npm start`: the only place (with the other entry points) that reads process.env.
const config = loadConfigOrExit(process.env);
const log = createLogger(config.logLevel, 'chatlytics');
let lock;
try {
  lock = await acquireDataDirLock(config.dataDir, 'npm start');
} catch (err) {
  exitOnStartupError(err);
}
try {
  const runtime = await buildStandalone(config, log);
  closeOnSignals(async () => {
    await runtime.close();
    await lock.release();
  }, log);
  await runtime.app.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG });
} catch (err) {
  log.fatal({ err }, 'start-up failed');
  await lock.release();
  process.exit(1);
}
