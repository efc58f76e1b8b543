import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Descriptors kept free for the engines' own files whatever the connection count: chdb's part
 * files and merges, the event log's segments and offsets, PGlite, the thread pool, logs. A
 * quarter of the limit on small limits (the 1,024 of many shells leaves 768 connections).
 */
export const FD_RESERVE = 1024;

/** The soft RLIMIT_NOFILE of this process (Node has no getrlimit: /proc on Linux, else the shell's ulimit). */
export function openFileLimit(): number {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    if (m) return m[1] === 'unlimited' ? 1_048_576 : Number(m[1]);
  } catch { /* not Linux */ }
  try {
    const n = Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
    if (Number.isFinite(n) && n > 0) return n;
  } catch { /* no shell */ }
  return 1024;
}

/** The connection cap that leaves the reserve free: limit − min(FD_RESERVE, limit / 4). */
export function defaultMaxConnections(limit = openFileLimit()): number {
  return Math.max(16, limit - Math.min(FD_RESERVE, Math.floor(limit / 4)));
}


/**
 * Caps open connections at `max`. Node's own server.maxConnections refuses the NEW connection,
 * so a flood of idle or slow connections would lock every legitimate visitor out until the
 * timeouts free a slot. Here a new connection past the cap evicts the OLDEST connection that
 * has no request being answered (idle keep-alive, or headers still trickling in); only when
 * every open connection is answering a request is the new one refused. A beacon's request
 * is parsed within a millisecond of connecting, so it is neither the oldest nor idle.
 *
 * The connections without a request being answered are a set of their own, oldest first (a
 * connection re-enters it when its answer is sent): finding the victim is taking the set's
 * first entry. Scanning all connections for one cost O(open connections) per new connection
 * once the cap was full of requests in progress, ~19,000 checks each under a flood of slow
 * bodies, on the event loop that has to cut them.
 */
export function guardConnections(server: Server, max: number): { open(): number; shutdown(): void } {
  const sockets = new Set<Socket>();
  /** The subset with no request being answered, in the order they became so. */
  const idle = new Set<Socket>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    if (sockets.size >= max) {
      const victim: Socket | undefined = idle.values().next().value;
      if (!victim) {
        socket.destroy();
        return;
      }
      sockets.delete(victim);
      idle.delete(victim);
      victim.destroy();
    }
    sockets.add(socket);
    idle.add(socket);
    socket.once('close', () => { sockets.delete(socket); idle.delete(socket); });
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const { socket } = req;
    idle.delete(socket);
    res.once('finish', () => { if (sockets.has(socket)) idle.add(socket); });
  });
  return {
    open: () => sockets.size,
    /**
     * On shutdown: connections without a request being answered are dropped (a half-sent
     * request would otherwise hold server.close() until its timeout, past the grace period);
     * requests being answered finish, and new connections are refused.
     */
    shutdown() {
      closing = true;
      for (const s of idle) s.destroy();
    },
  };
}
