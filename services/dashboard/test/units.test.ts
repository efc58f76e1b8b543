import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import Fastify from 'fastify';
import fastifyCookie from '@fastify/cookie';
import Type from 'typebox';
import { credentialKind, digestsEqual, generateCredential, sha256Hex } from '../src/crypto/credentials.js';
import { hashPassword, verifyPassword, TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { isCrossOrigin, localPath, sameOriginPath } from '../src/http/origin.js';
import { cookiePolicy, setSessionCookie } from '../src/auth/session-cookie.js';
import { toDashboardError, errorBody } from '../src/http/error-handler.js';
import { DashboardError, Errors } from '../src/http/errors.js';
import { buildExtraTagConfig } from '../src/data-sources/presenter.js';
import { createLocalRawContentStorage } from '../src/data-sources/raw-content-storage.js';
import { dashboardValidatorCompiler, fieldErrors } from '../src/http/validation.js';

t.test('credentials: prefix, 256 random bits, SHA-256 digests compared in constant time', async (t) => {
  const key = generateCredential('api_key');
  const token = generateCredential('token');
  t.match(key, /^ck_[A-Za-z0-9_-]{43}$/);
  t.match(token, /^ct_[A-Za-z0-9_-]{43}$/);
  t.not(generateCredential('api_key'), key);
  t.equal(credentialKind(key), 'api_key');
  t.equal(credentialKind(token), 'token');
  t.equal(credentialKind('xx_abc'), null);
  t.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  t.ok(digestsEqual(sha256Hex(key), sha256Hex(key)));
  t.notOk(digestsEqual(sha256Hex(key), sha256Hex(token)));
  t.notOk(digestsEqual('', ''), 'empty digests never match');
  t.notOk(digestsEqual('ab', 'abab'), 'different lengths do not throw, they differ');
});

t.test('passwords: scrypt with parameters in the string, per-user salt', async (t) => {
  const a = await hashPassword('s3cret', TEST_SCRYPT_COST);
  const b = await hashPassword('s3cret', TEST_SCRYPT_COST);
  t.match(a, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.not(a, b, 'a fresh salt every time');
  t.equal(await verifyPassword('s3cret', a), true);
  t.equal(await verifyPassword('s3cret ', a), false);
  t.equal(await verifyPassword('s3cret', 'bcrypt$whatever'), false, 'an unknown format is a mismatch, not a crash');
  t.equal(await verifyPassword('s3cret', 'scrypt$x$8$1$AAAA$AAAA'), false);
  const strong = await hashPassword('s3cret', { N: 2 ** 15, r: 8, p: 1 });
  t.equal(await verifyPassword('s3cret', strong), true, 'the production cost works within the memory limit');
});

t.test('origin checks and redirect targets', async (t) => {
  const req = (origin?: string) => ({ headers: origin === undefined ? {} : { origin } }) as never;
  t.equal(isCrossOrigin(req(), 'http://localhost:3000'), false);
  t.equal(isCrossOrigin(req('http://localhost:3000'), 'http://localhost:3000'), false);
  t.equal(isCrossOrigin(req('http://localhost:3001'), 'http://localhost:3000'), true);
  t.equal(isCrossOrigin(req('null'), 'http://localhost:3000'), true, 'sandboxed frames send "null"');
  t.equal(sameOriginPath('http://localhost:3000/a?b=1', 'http://localhost:3000'), '/a?b=1');
  t.equal(sameOriginPath('https://evil.test/a', 'http://localhost:3000'), null);
  t.equal(sameOriginPath('not a url', 'http://localhost:3000'), '/not%20a%20url', 'relative referers resolve against APP_URL');
  t.equal(localPath('/app'), '/app');
  for (const bad of ['//evil.test', 'https://evil.test', '/\\evil.test', 42, undefined]) t.equal(localPath(bad), null);
});

t.test('session cookie: Secure exactly when APP_URL is https', async (t) => {
  for (const [appUrl, secure] of [['https://dash.example.test', true], ['http://localhost:3000', false]] as const) {
    const app = Fastify();
    await app.register(fastifyCookie, { secret: 's'.repeat(32) });
    app.get('/', async (_req, reply) => {
      setSessionCookie(reply, 'id', new Date('2030-01-01T00:00:00Z'), cookiePolicy(appUrl));
      return 'ok';
    });
    const res = await app.inject('/');
    const header = String(res.headers['set-cookie']);
    t.match(header, /HttpOnly/);
    t.match(header, /SameSite=Lax/);
    t.equal(/;\s*Secure/.test(header), secure, appUrl);
    await app.close();
  }
});

t.test('local raw content storage: round trip, missing is null, traversal refused', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-storage-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.writeFileSync(path.join(path.dirname(root), `${path.basename(root)}-sibling.txt`), 'x');
  t.teardown(() => fs.rmSync(path.join(path.dirname(root), `${path.basename(root)}-sibling.txt`), { force: true }));
  const storage = createLocalRawContentStorage(root);
  await storage.write('a/b/c.txt', 'héllo');
  t.equal(await storage.read('a/b/c.txt'), 'héllo');
  t.equal(await storage.read('a/./b/../b/c.txt'), 'héllo', 'normalised paths inside the root are fine');
  t.equal(await storage.read('missing.txt'), null);
  for (const bad of ['../x', '../../etc/passwd', '/etc/passwd', 'a/../../x', `../${path.basename(root)}-sibling.txt`, 'a\0b', '.', '']) {
    await t.rejects(storage.read(bad), { name: 'StoragePathError', code: 'STORAGE_PATH_OUTSIDE_ROOT' }, JSON.stringify(bad));
  }
  await t.rejects(storage.write('../escape.txt', 'x'), { code: 'STORAGE_PATH_OUTSIDE_ROOT' });
  t.notOk(fs.existsSync(path.join(path.dirname(root), 'escape.txt')));
});

t.test('validator: converts form text, fills defaults, reports every error', async (t) => {
  const schema = Type.Object({
    chatbot_id: Type.String({ format: 'uuid' }),
    query: Type.String({ minLength: 1, maxLength: 5 }),
    document_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  });
  const validate = dashboardValidatorCompiler({ schema, method: 'POST', url: '/', httpPart: 'body' }) as (v: unknown) => { value?: unknown; error?: unknown[] };
  t.same(validate({ chatbot_id: '0a000000-0000-4000-8000-000000000001', query: 'abc' }).value,
    { chatbot_id: '0a000000-0000-4000-8000-000000000001', query: 'abc', document_count: 10 });
  t.same(validate({ chatbot_id: '0a000000-0000-4000-8000-000000000001', query: 'abc', document_count: '7' }).value?.valueOf(),
    { chatbot_id: '0a000000-0000-4000-8000-000000000001', query: 'abc', document_count: 7 });
  const input = { chatbot_id: 'x', query: 'abcdef', document_count: '0' };
  const { error } = validate(input);
  t.same(fieldErrors(error as never), {
    chatbot_id: ['The chatbot id field must be a valid UUID.'],
    query: ['The query field must not be greater than 5 characters.'],
    document_count: ['The document count field must be at least 1.'],
  });
  t.equal(input.document_count, '0', 'the caller\'s object is not mutated');
});

t.test('fieldErrors: nested paths, unions, and missing properties', async (t) => {
  t.same(fieldErrors([
    { keyword: 'required', instancePath: '/items/0', params: { requiredProperties: ['name', 'value'] } },
    { keyword: 'anyOf', instancePath: '/a', params: {} },
    { keyword: 'type', instancePath: '/b', params: { type: 'string' } },
    { keyword: 'anyOf', instancePath: '/b', params: {} },
    { keyword: 'pattern', instancePath: '/c', params: {} },
  ]), {
    'items.0.name': ['The items 0 name field is required.'],
    'items.0.value': ['The items 0 value field is required.'],
    b: ['The b field must be a string.'],
    c: ['The c field is invalid.'],
    a: ['The a field is invalid.'],
  });
});

t.test('error mapping: codes, statuses, and no internals in 5xx bodies', async (t) => {
  const params = Object.assign(new Error('params/id must match format "uuid"'), { validation: [], validationContext: 'params' });
  t.equal(toDashboardError(params).code, 'DASHBOARD_004');
  const body = Object.assign(new Error('x'), { validation: [{ keyword: 'required', instancePath: '', params: { requiredProperties: ['q'] } }], validationContext: 'body' });
  const mapped = toDashboardError(body);
  t.equal(mapped.code, 'DASHBOARD_006');
  t.same(errorBody(mapped), { success: false, message: 'The given data was invalid.', errors: { q: ['The q field is required.'] } });
  const json = Object.assign(new Error('Unexpected end of JSON input'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 });
  t.equal(toDashboardError(json).code, 'DASHBOARD_008');
  t.equal(toDashboardError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 })).statusCode, 415);
  t.equal(toDashboardError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 })).statusCode, 413);
  const secret = new Error('password authentication failed for user "postgres" at 10.0.0.5');
  const internal = toDashboardError(secret);
  t.equal(internal.code, 'DASHBOARD_012');
  t.equal(internal.statusCode, 500);
  t.same(errorBody(internal), { success: false, message: 'Server Error' });
  t.equal(internal.cause, secret, 'the cause is kept for the log');
  t.same(errorBody(Errors.searchFailed(secret)), { success: false, message: 'Search failed.' });
  const known = Errors.unauthenticated();
  t.equal(toDashboardError(known), known);
  t.ok(known instanceof DashboardError);
  for (const [make, code, status] of [
    [Errors.unauthenticated, 'DASHBOARD_001', 401], [Errors.sessionRequired, 'DASHBOARD_002', 401],
    [Errors.crossOrigin, 'DASHBOARD_003', 403], [Errors.notFound, 'DASHBOARD_004', 404],
    [Errors.badCredentials, 'DASHBOARD_007', 422],
  ] as const) {
    const e = make();
    t.equal(e.code, code);
    t.equal(e.statusCode, status);
  }
});

t.test('extra tag config: every chatbot, distinct values in code-unit order, default name', async (t) => {
  const bots = [
    { id: 'a', settings: { extraTagName: 'color' } },
    { id: 'b', settings: {} },
    { id: 'c', settings: { extraTagName: '' } },
  ];
  t.same(buildExtraTagConfig(bots, [
    { chatbotId: 'a', extraTags: [{ name: 'color', value: 'red' }, { name: 'x', value: 'Blue' }] },
    { chatbotId: 'a', extraTags: [{ name: 'color', value: 'red' }, { name: 'color', value: 'ärger' }, { value: 'no name' }, 'junk'] },
    { chatbotId: 'zzz', extraTags: [{ name: 'color', value: 'other account' }] },
    { chatbotId: 'b', extraTags: { not: 'an array' } },
  ]), {
    a: { name: 'color', values: ['Blue', 'red', 'ärger'] },
    b: { name: 'static_category', values: [] },
    c: { name: 'static_category', values: [] },
  });
});
