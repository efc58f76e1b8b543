import http from 'node:http';
import path from 'node:path';
import type { AdminEndpoint } from './endpoint-file.js';

export class RemoteCommandError extends Error {
  override name = 'RemoteCommandError';
  /** True when the command itself refused (422): its message is what the CLI prints alone. */
  constructor(message: string, readonly refused = false) {
    super(message);
  }
}

/** Arguments naming files are made absolute: the server's working directory is not the CLI's. */
export function absoluteArgv(command: string, argv: string[]): string[] {
  if (command !== 'import') return argv;
  return argv.map((a) => (a.startsWith('--') ? a : path.resolve(a)));
}

/**
 * Runs a CLI command in the running server (routes.ts) and resolves with what the command
 * printed there. node:http rather than fetch: a demo import may take minutes, longer than
 * fetch's default wait for response headers.
 */
export function runRemote(endpoint: AdminEndpoint, command: string, argv: string[]): Promise<unknown> {
  const body = JSON.stringify({ command, argv: absoluteArgv(command, argv) });
  const url = new URL('/api/admin/cli', endpoint.url);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${endpoint.credential}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        let json: { success?: boolean; data?: unknown; message?: string; errors?: Record<string, string[]> };
        try { json = JSON.parse(text); } catch { return reject(new RemoteCommandError(`the server answered ${res.statusCode} without JSON`)); }
        if (res.statusCode === 200 && json.success) return resolve(json.data);
        const details = Object.values(json.errors ?? {}).flat().map((p) => `\n  ${p}`).join('');
        reject(new RemoteCommandError(`${json.message ?? `status ${res.statusCode}`}${details}`, res.statusCode === 422));
      });
    });
    req.on('error', (err) => reject(new RemoteCommandError(`cannot reach the running server at ${endpoint.url}: ${err.message}`)));
    req.end(body);
  });
}
