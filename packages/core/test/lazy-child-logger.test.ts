import { Writable } from 'node:stream';
import t from 'tap';
import { pino } from 'pino';
import { lazyChildLogger, loggerOptions } from '../src/logger.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({ write(chunk, _enc, cb) { lines.push(JSON.parse(chunk.toString())); cb(); } });
  return { logger: pino(loggerOptions(level, 'test'), stream), lines };
}

t.test('the lazy request logger writes with its bindings and the parent redaction', async (t) => {
  const { logger, lines } = capture('info');
  const child = lazyChildLogger(logger, { reqId: 'req-1' }, {});
  child.warn({ token: 'secret-token', n: 1 }, 'slow');
  child.debug('not at info level');
  await new Promise((r) => setImmediate(r));
  t.equal(lines.length, 1);
  t.match(lines[0], { reqId: 'req-1', n: 1, token: '[redacted]', msg: 'slow', level: 40 });
  t.equal(child.level, 'info');
  t.match(child.child({ extra: 2 }), { info: Function });
});

t.test('nothing is built for a request that logs nothing below the level', async (t) => {
  const { logger } = capture('warn');
  let children = 0;
  const parent = Object.assign(Object.create(logger), { child: (...a: Parameters<typeof logger.child>) => { children++; return logger.child(...a); } });
  const child = lazyChildLogger(parent, { reqId: 'req-2' }, {});
  child.info('skipped');
  child.debug('skipped');
  t.equal(children, 0);
  child.error('kept');
  child.error('kept again');
  t.equal(children, 1, 'one real child, on first use');
});

t.test('a route with its own log level gets a real child at that level', async (t) => {
  const { logger, lines } = capture('info');
  const child = lazyChildLogger(logger, { reqId: 'req-3' }, { level: 'warn' });
  child.info('hidden by the route level');
  child.warn('shown');
  await new Promise((r) => setImmediate(r));
  t.same(lines.map((l) => l.msg), ['shown']);
});
