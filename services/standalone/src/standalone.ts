import net from 'node:net';
import { createLogger, acquireDataDirLock, listeningOn, type Config } from '@chatlytics/core';
import { closeOnSignals, exitOnStartupError, LISTEN_BACKLOG, loadConfigOrExit } from '@chatlytics/core/http';
import { buildStandalone } from './standalone-app.js';

/**
 * PORT=0 asks for any free port; the links the app generates need the real one before the app is
 * built, so it is chosen here (a brief bind) and the config derived from it once.
 */
async function withRealPort(config: Config): Promise<Config> {
  if (config.port !== 0) return config;
  const port = await new Promise<number>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, config.host, () => {
      const { port: chosen } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(chosen));
    });
  });
  return listeningOn(config, port);
}

// Entry point of `npm start`: the only place (with the other entry points) that reads process.env.
const config = await withRealPort(loadConfigOrExit(process.env));
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
