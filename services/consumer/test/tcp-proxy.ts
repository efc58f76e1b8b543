import net from 'node:net';

/**
 * A TCP forwarder in front of a server, switched off and on by the test: off, it closes its
 * listener and every open connection, so clients get ECONNREFUSED (a ClickHouse that is down,
 * not one that hangs); on, it listens again on the same port.
 */
export async function tcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const listen = (port: number) => new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => { server.off('error', reject); resolve((server.address() as net.AddressInfo).port); });
  });
  const port = await listen(0);
  let up = true;
  return {
    url: `http://127.0.0.1:${port}`,
    async down(): Promise<void> {
      if (!up) return;
      up = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    async up(): Promise<void> {
      if (up) return;
      await listen(port);
      up = true;
    },
    async close(): Promise<void> {
      await this.down();
    },
  };
}
