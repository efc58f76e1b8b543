import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const entry = path.join(root, 'services/standalone/src/standalone.ts');

export interface Started { child: ChildProcess; url: string; output: () => string }

/**
 * Starts `npm start`'s entry point on a free port, embedded engines only: its TypeScript source
 * through tsx, or with `argv` another command line (a built bundle: bundle.e2e.test.ts).
 */
export function start(dataDir: string, extraEnv: Record<string, string> = {}, timeoutMs = 120_000, argv = ['--import', 'tsx', entry]): Promise<Started> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root',
    DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...extraEnv,
  };
  const child = spawn(process.execPath, argv, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start in time:\n${out}`)), timeoutMs);
    const onData = () => {
      const m = out.match(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve({ child, url: m[1], output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`exited with ${code} before listening:\n${out}`)); });
  });
}

export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

const cliEntry = path.join(root, 'services/standalone/src/cli.ts');

export interface CliRun { code: number | null; stdout: string; stderr: string; json: () => any }

/** Runs `npm run cli -- …`'s entry point as its own process on DATA_DIR, as the script does. */
export function cli(dataDir: string, args: string[], cwd = root): Promise<CliRun> {
  // A minimal environment: CI's DATABASE_URL / KAFKA_BROKERS must not make this run against servers.
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', DATA_DIR: dataDir };
  const child = spawn(process.execPath, ['--import', 'tsx', cliEntry, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => { stdout += d; });
  child.stderr!.on('data', (d) => { stderr += d; });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) }));
  });
}
