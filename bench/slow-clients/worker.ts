/**
 * One process of slow clients (harness.ts starts several: one process holds fewer sockets
 * than the descriptor limit allows). Each client connects, sends a tracking request's headers
 * announcing a 1,000-byte body and 10 bytes of it, then nothing; every other client first waits
 * `startDelayMs` after connecting (a late starter: Node's own deadline restarts at the first
 * byte of a request). Prints one JSON line: per socket, milliseconds from its connection to
 * the server closing it (-1: still open when the worker gave up, `giveUpMs` after the last
 * socket was opened). Each socket comes from its own
 * loopback address (`127.<block>.x.y`), as a flood from many addresses would: none of them is
 * answered early by the per-IP rate limit, every one waits for its body.
 *
 * argv: host port count block giveUpMs startDelayMs connecting
 */
import net from 'node:net';

const [host, portText, countText, blockText, giveUpText, startDelayText, connectingText] = process.argv.slice(2);
const startDelayMs = Number(startDelayText ?? 0);
const port = Number(portText);
const count = Number(countText);
const giveUpMs = Number(giveUpText);
const block = Number(blockText);
const sourceOf = (i: number) => `127.${block}.${Math.floor(i / 250)}.${(i % 250) + 1}`;
// Connects in flight at once. A bounded number opens thousands a second without overflowing the
// server's accept queue; 0 opens them all at once, as a flood does.
const CONNECTING = Number(connectingText ?? 256) || Infinity;

const HEAD = `POST /api/analytics/track HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
const PARTIAL_BODY = '{"event":"';

const lifetimes = new Array<number>(count).fill(-1);
const sockets: net.Socket[] = [];
let started = 0;
let connecting = 0;
let refused = 0;
let answered408 = 0;

function openNext(): void {
  while (connecting < CONNECTING && started < count) {
    const index = started++;
    connecting++;
    const socket = net.connect({ host, port, localAddress: sourceOf(index) });
    sockets.push(socket);
    let connectedAt = 0;
    let connected = false;
    socket.on('connect', () => {
      connected = true;
      connectedAt = performance.now();
      connecting--;
      const send = () => { if (!socket.destroyed) socket.write(HEAD + PARTIAL_BODY); };
      if (index % 2 === 1 && startDelayMs > 0) setTimeout(send, startDelayMs);
      else send();
      openNext();
    });
    socket.on('data', (chunk) => { if (chunk.toString('latin1').startsWith('HTTP/1.1 408')) answered408++; });
    socket.on('error', () => { /* a reset is a close too */ });
    socket.on('close', () => {
      if (!connected) { connecting--; refused++; openNext(); }
      lifetimes[index] = connected ? performance.now() - connectedAt : 0;
    });
  }
  if (started === count && connecting === 0) finish();
}

let finishing = false;
function finish(): void {
  if (finishing) return;
  finishing = true;
  const timer = setTimeout(report, giveUpMs);
  const check = setInterval(() => {
    if (lifetimes.every((l) => l >= 0)) { clearTimeout(timer); clearInterval(check); report(); }
  }, 200);
  timer.unref();
}

function report(): void {
  process.stdout.write(`${JSON.stringify({ lifetimes: lifetimes.map((l) => Math.round(l)), refused, answered408 })}\n`);
  for (const s of sockets) s.destroy();
  process.exit(0);
}

openNext();
