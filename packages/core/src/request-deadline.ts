import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

/** How often the deadlines are swept: a fraction of the 1 s checking interval, so a busy event loop still cuts in time. */
export const DEADLINE_SWEEP_MS = 250;

const REQUEST_TIMEOUT_RESPONSE = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

type Tracked = Socket & { chatlyticsFirstRequest?: IncomingMessage };

/**
 * Cuts every connection whose first request is not fully received `requestTimeoutMs` after the
 * connection was accepted. Node's own requestTimeout counts from the moment it parsed the
 * request's headers and is checked once per connectionsCheckingInterval: under a flood of tens
 * of thousands of connections that parse comes seconds after the accept, and the check itself
 * runs late, so hundreds of slow clients outlived timeout + interval by seconds. Here the clock
 * starts at the accept, and the sweep is a FIFO in accept order (deadlines are monotonic): it
 * looks only at connections whose deadline passed, never at the others.
 *
 * Later requests on a kept-alive connection stay with Node's own check (from their headers).
 */
export function cutLateRequests(server: Server, requestTimeoutMs: number, sweepMs = DEADLINE_SWEEP_MS): { stop(): void } {
  const queue: { socket: Tracked; deadline: number }[] = [];
  let head = 0;
  server.on('connection', (socket: Socket) => {
    queue.push({ socket, deadline: performance.now() + requestTimeoutMs });
  });
  server.on('request', (req: IncomingMessage) => {
    const socket = req.socket as Tracked;
    socket.chatlyticsFirstRequest ??= req;
  });
  const timer = setInterval(() => {
    const now = performance.now();
    while (head < queue.length && queue[head].deadline <= now) {
      const { socket } = queue[head];
      queue[head++] = undefined as never;
      const req = socket.chatlyticsFirstRequest;
      if (socket.destroyed || req?.complete) continue;
      // A request whose answer already started (a handler that responds before reading the
      // body) gets no second status line; either way the connection goes.
      const answerStarted = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
      if (socket.writable && !answerStarted) socket.write(REQUEST_TIMEOUT_RESPONSE);
      socket.destroy();
    }
    // Compact once the consumed prefix dominates, so the array does not grow for ever.
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
  }, sweepMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
