/**
 * Servers under test in child processes, so that the load generator's CPU is not the server's.
 * One protocol over the IPC channel, both sides here: the child listens, then sends `{port}`;
 * it answers `'stats'` with its memory and CPU (`ChildStats`), stops on `'stop'`, exits when the
 * parent is gone, and passes any other message to its own handler, whose answer is sent back.
 * Started by hand (no IPC channel, e.g. under `node --cpu-prof` for a profile), it prints
 * `listening on <port>` and stops cleanly on Ctrl-C.
 *
 * The parent side: startChild / ask / stopChild, and onExit, which kills every child (and runs
 * any other clean-up) however the run ends: normally, on an error, or on Ctrl-C / SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface Started { child: ChildProcess; port: number }
export interface ChildStats { rss: number; heap: number; external: number; cpuUs: number }

// ---------------------------------------------------------------- parent

const cleanups = new Set<() => void>();
let trapped = false;

function runCleanups(): void {
  for (const fn of [...cleanups]) {
    cleanups.delete(fn);
    try {
      fn();
    } catch {
      // the rest still runs
    }
  }
}

/** Runs `fn` (synchronous) when this process ends, by exit or by SIGINT / SIGTERM; the returned function forgets it. */
export function onExit(fn: () => void): () => void {
  if (!trapped) {
    trapped = true;
    process.once('exit', runCleanups);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        runCleanups();
        process.exit(130);
      });
    }
  }
  cleanups.add(fn);
  return () => { cleanups.delete(fn); };
}

/**
 * `node <args…>` as a child server; resolves once it sent its port. Its stdout goes to this
 * process's stderr (stdout carries the figures alone).
 */
export function startChild(args: string[], opts: { label: string; env?: NodeJS.ProcessEnv; cwd?: string }): Promise<Started> {
  const child = spawn(process.execPath, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 2, 'inherit', 'ipc'] });
  const forget = onExit(() => child.kill('SIGKILL'));
  child.once('exit', forget);
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`${opts.label} server exited with ${code}`)));
  });
}

/** One message to a child and its answer. */
export const ask = <T>(child: ChildProcess, msg: string): Promise<T> => new Promise<T>((resolve) => {
  child.once('message', (m: T) => resolve(m));
  child.send(msg);
});

export const childStats = (child: ChildProcess): Promise<ChildStats> => ask<ChildStats>(child, 'stats');

/** Asks a child to stop; resolves once it has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.send('stop');
  });
}

// ---------------------------------------------------------------- child

export interface Served {
  port: number;
  close(): Promise<void>;
  /** Messages other than 'stats' and 'stop'; a defined answer is sent back to the parent. */
  onMessage?(msg: string): Promise<unknown> | undefined;
}

/** The child's side of the protocol, once its server listens on `served.port`. */
export function serveChild(served: Served): void {
  const stop = async () => {
    await served.close();
    process.exit(0);
  };
  if (!process.send) {
    console.log(`listening on ${served.port}`);
    process.once('SIGINT', () => void stop());
    return;
  }
  // The parent gone (killed, crashed) means nobody will ever send 'stop'.
  process.once('disconnect', () => process.exit(0));
  process.on('message', (msg: string) => {
    if (msg === 'stats') {
      const cpu = process.cpuUsage();
      const mem = process.memoryUsage();
      process.send!({ rss: mem.rss, heap: mem.heapTotal, external: mem.external, cpuUs: cpu.user + cpu.system } satisfies ChildStats);
    } else if (msg === 'stop') {
      void stop();
    } else {
      void served.onMessage?.(msg)?.then((answer) => process.send!(answer as object));
    }
  });
  process.send({ port: served.port });
}
