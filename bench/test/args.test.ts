import t from 'tap';
import { helpText, opt, parseOptions, retiredEnv, UsageError } from '../lib/args.js';

const OPTIONS = {
  events: opt.number(1000, 'events', { min: 1, integer: true }),
  'read-ahead': opt.number(undefined, 'batches read ahead'),
  base: opt.string(undefined, 'a commit'),
  bus: opt.choice(['embedded', 'kafka'], 'embedded', 'the bus'),
  'v4-ids': opt.flag('random ids'),
  scenarios: opt.list(['bare', 'kafka'], 'scenarios'),
  sweep: opt.numbers([50, 256], 'connection counts'),
  pairs: opt.number(30, 'pairs', { alias: 'calls' }),
};

t.test('defaults, typed values and every kind of option', async (t) => {
  const { values, help } = parseOptions(OPTIONS, []);
  t.same(values, { events: 1000, 'read-ahead': undefined, base: undefined, bus: 'embedded', 'v4-ids': false, scenarios: ['bare', 'kafka'], sweep: [50, 256], pairs: 30 });
  t.equal(help, false);
  const given = parseOptions(OPTIONS, ['--events', '20000', '--read-ahead=4', '--base', 'HEAD~1', '--bus', 'kafka', '--v4-ids', '--scenarios', 'bare, nobus', '--sweep', '1000']).values;
  t.same(given, { events: 20000, 'read-ahead': 4, base: 'HEAD~1', bus: 'kafka', 'v4-ids': true, scenarios: ['bare', 'nobus'], sweep: [1000], pairs: 30 });
  t.equal(typeof given.events, 'number', 'numbers are numbers');
  t.equal(parseOptions(OPTIONS, ['-h']).help, true);
  t.equal(parseOptions(OPTIONS, ['--help']).help, true);
});

t.test('an older name of a flag means the same', async (t) => {
  t.equal(parseOptions(OPTIONS, ['--calls', '7']).values.pairs, 7);
  t.equal(parseOptions(OPTIONS, ['--pairs', '8']).values.pairs, 8);
});

t.test('a flag value may start with a dash when written with =', async (t) => {
  const flags = { 'server-node-flags': opt.string('', 'node flags') };
  t.equal(parseOptions(flags, ['--server-node-flags=--max-old-space-size=96']).values['server-node-flags'], '--max-old-space-size=96');
});

t.test('mistakes stop the run with a usage error naming the flag', async (t) => {
  const bad = (argv: string[], message: RegExp) => t.throws(() => parseOptions(OPTIONS, argv), { constructor: UsageError, message });
  bad(['--events', 'many'], /--events takes a number, not "many"/);
  bad(['--events', '1.5'], /--events takes a whole number/);
  bad(['--events', '0'], /--events must be at least 1/);
  bad(['--bus', 'rabbit'], /--bus is one of embedded, kafka/);
  bad(['--sweep', '50,lots'], /--sweep takes a number, not "lots"/);
  bad(['--nope'], /Unknown option '--nope'/);
  bad(['positional'], /positional/);
});

t.test('--help lists each option with its default', async (t) => {
  const text = helpText('demo', 'What it measures.', OPTIONS);
  t.match(text, /^npm run bench -- demo \[options\]\n\nWhat it measures\./);
  t.match(text, /--events <value>\s+1000\s+events/);
  t.match(text, /--bus embedded\|kafka\s+embedded\s+the bus/);
  t.match(text, /--scenarios <value>\s+bare,kafka\s+scenarios/);
  t.match(text, /--pairs <value> \(or --calls\)\s+30\s+pairs/);
  t.match(text, /--v4-ids\s+random ids/);
});

t.test('a BENCH_* variable is named with the flag that replaced it', async (t) => {
  t.same(retiredEnv({ PATH: '/bin', KAFKA_BROKERS: 'x' }), []);
  t.same(retiredEnv({ BENCH_DIR: '/d', BENCH_SKIP_PG: '1', BENCH_WHATEVER: '1' }), [
    'BENCH_DIR is not read any more: use --dir <dir>',
    'BENCH_SKIP_PG is not read any more: use --skip-pg',
    'BENCH_WHATEVER is not read any more: the benches take flags (--help)',
  ]);
});
