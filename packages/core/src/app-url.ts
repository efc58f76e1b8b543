const LOCAL_HOSTS = new Set(['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost']);

/**
 * The base of every generated link when APP_URL is not set: the address the server listens on
 * (a loopback or wildcard HOST is written `localhost`, which the browser and the origin rule treat
 * as this machine).
 */
export function localAppUrl(host: string, port: number): string {
  const name = LOCAL_HOSTS.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** The part of the config the links' base depends on (config.ts's Config has it). */
interface LinkConfig { port: number; host: string; appUrl: string; appUrlExplicit: boolean; ingestPublicUrl: string }

/**
 * The config of a server that listens on `port` (PORT=0 resolved to a real port before start-up):
 * the links' base follows it unless APP_URL (or INGEST_PUBLIC_URL) was set.
 */
export function listeningOn<C extends LinkConfig>(config: C, port: number): C {
  if (config.appUrlExplicit) return { ...config, port };
  const appUrl = localAppUrl(config.host, port);
  const ingestDefaulted = config.ingestPublicUrl === config.appUrl;
  return { ...config, port, appUrl, ingestPublicUrl: ingestDefaulted ? appUrl : config.ingestPublicUrl };
}
