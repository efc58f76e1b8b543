import t from 'tap';
import { PoisonedJsonError, isPoisoned, parseJsonSafely } from '../src/index.js';

t.test('plain JSON parses as JSON.parse does', async (t) => {
  t.same(parseJsonSafely('{"a":[1,{"b":"c"}],"constructor":"fine"}'), { a: [1, { b: 'c' }], constructor: 'fine' });
  t.same(parseJsonSafely('"\\u0041"'), 'A');
  t.throws(() => parseJsonSafely('{oops'), SyntaxError);
});

t.test('prototype-poisoning keys are refused, escaped or not, at any depth', async (t) => {
  const poisoned = [
    '{"__proto__":{"isAdmin":true}}',
    '{"a":[{"b":{"__proto__":{}}}]}',
    '{"\\u005f_proto__":{"x":1}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '{"a":{"\\u0063onstructor":{"prototype":{}}}}',
  ];
  for (const text of poisoned) t.throws(() => parseJsonSafely(text), PoisonedJsonError, text);
});

t.test('the scan is iterative: deep nesting does not overflow the stack', async (t) => {
  const depth = 200_000;
  t.notOk(isPoisoned(JSON.parse('['.repeat(depth) + ']'.repeat(depth))));
  t.ok(isPoisoned(JSON.parse(`${'['.repeat(depth)}{"__proto__":1}${']'.repeat(depth)}`)));
});
