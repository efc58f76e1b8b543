/**
 * A log-in with an e-mail that cannot be one (a NUL byte, other control characters, no `@`)
 * is a 422 like any invalid field, on the form, the JSON log-in and the token endpoint; it never
 * reaches the database (PostgreSQL refuses a NUL in text: that was a 500), and no log line
 * carries the address.
 */
import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { buildTestApp } from './helper.js';

for (const variant of databaseVariants()) {
  t.test(`malformed e-mails at log-in (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app, logs } = await buildTestApp(t, variant);
    const marker = 'leak-marker';
    const emails = [`${marker}\u0000@shop.test`, `${marker}@shop\u0000.test`, `${marker}\u0001@shop.test`, `${marker}-no-at-sign`, `${marker}\n@shop.test`];
    for (const email of emails) {
      for (const url of ['/login', '/api/auth/tokens']) {
        const res = await app.inject({ method: 'POST', url, headers: { accept: 'application/json' }, payload: { email, password: 'whatever-password' } });
        t.equal(res.statusCode, 422, `${url} ${JSON.stringify(email)}: 422`);
        t.match(res.json(), { success: false, errors: { email: [/./] } }, 'the field is named');
      }
      const form = await app.inject({ method: 'POST', url: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `email=${encodeURIComponent(email)}&password=x` });
      t.equal(form.statusCode, 302, 'the form goes back to the form');
    }
    const lines = JSON.stringify(logs);
    t.notMatch(lines, marker, 'no log line names the address');
    t.notMatch(lines, /"level":50/, 'no error logged');
  });
}
