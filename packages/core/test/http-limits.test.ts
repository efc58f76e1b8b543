import net from 'node:net';
import t from 'tap';
import { loadConfig } from '../src/config.js';
import { defaultMaxConnections, openFileLimit } from '../src/connection-guard.js';
import { createHttpServer } from '../src/http-server.js';

async function server(env: Record<string, string>) {
  const config = loadConfig({ DATA_DIR: '/tmp/unused', LOG_LEVEL: 'silent', ...env });
  const app = await createHttpServer({ title: 'limits', config });
  app.post('/beacon', async () => ({ ok: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as net.AddressInfo).port };
}

/** Opens a connection that sends `first`, then `drip` every 300 ms; resolves with how long the server kept it. */
function slowClient(port: number, first: string, drip: string): Promise<{ ms: number; answer: string }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(first));
    const timer = setInterval(() => socket.write(drip), 300);
    let answer = '';
    socket.on('data', (d) => { answer += d; });
    socket.on('error', () => {});
    socket.on('close', () => { clearInterval(timer); resolve({ ms: Date.now() - started, answer }); });
  });
}

t.test('the cap leaves descriptors for the engines', async (t) => {
  t.equal(defaultMaxConnections(20_000), 18_976);
  t.equal(defaultMaxConnections(1024), 768);
  t.ok(openFileLimit() >= 256, `this process may open ${openFileLimit()} files`);
});

t.test('slow clients are cut off within the timeout', async (t) => {
  const { app, port } = await server({ HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000', HTTP_IDLE_TIMEOUT_MS: '5000' });
  t.teardown(() => app.close());
  // Headers one line at a time, never finished; then a body one byte at a time, never finished.
  const [headers, body] = await Promise.all([
    slowClient(port, 'POST /beacon HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n'),
    slowClient(port, 'POST /beacon HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{', ' '),
  ]);
  // The deadlines are checked once a second: timeout + 1 s, plus slack for a loaded machine.
  t.ok(headers.ms >= 900 && headers.ms < 3500, `headers trickling: cut after ${headers.ms} ms (headers timeout 1 s)`);
  t.ok(body.ms >= 1900 && body.ms < 4500, `body trickling: cut after ${body.ms} ms (request timeout 2 s)`);
  t.match(body.answer, /^HTTP\/1\.1 408/, 'the body-trickler is told 408');
});

t.test('past the connection cap the oldest idle connection makes room; a beacon still gets through', async (t) => {
  const { app, port } = await server({ HTTP_MAX_CONNECTIONS: '5' });
  t.teardown(() => app.close());
  const closed: number[] = [];
  const idle = await Promise.all(Array.from({ length: 5 }, (_, i) => new Promise<net.Socket>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.on('close', () => closed.push(i));
    s.on('error', () => {});
  })));
  t.teardown(() => { for (const s of idle) s.destroy(); });
  await new Promise((r) => setTimeout(r, 100)); // the server has accepted all five
  const res = await fetch(`http://127.0.0.1:${port}/beacon`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  t.equal(res.status, 200);
  await new Promise((r) => setTimeout(r, 100));
  t.same(closed, [0], 'exactly the oldest idle connection was closed');
});

t.test('closing drops half-sent requests at once instead of waiting for their timeout', async (t) => {
  const { app, port } = await server({ HTTP_HEADERS_TIMEOUT_MS: '60000', HTTP_REQUEST_TIMEOUT_MS: '60000' });
  const slow = slowClient(port, 'POST /beacon HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n');
  await new Promise((r) => setTimeout(r, 200));
  const started = Date.now();
  await app.close();
  t.ok(Date.now() - started < 2000, `closed in ${Date.now() - started} ms`);
  t.ok((await slow).ms < 3000, 'the slow client was disconnected');
});
