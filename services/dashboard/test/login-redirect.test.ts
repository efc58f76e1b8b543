import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { localPath } from '../src/http/origin.js';
import { buildTestApp } from './helper.js';
import { USERS } from './fixture.js';

/** Values a browser would read as another host (or a script), raw and percent-encoded. */
const HOSTILE = [
  '/%09/evil.example/', '/\t/evil.example/', '/\r/evil.example/', '/\n/evil.example/', '/%0d%0a/evil.example/', '/%0A/evil.example',
  '//evil.example', '///evil.example', '/\\evil.example', '/\\\\evil.example', '/%5C%5Cevil.example', '/%5Cevil.example', '/%2F/evil.example',
  '/%2f%2fevil.example', '%2F%2Fevil.example', 'https://evil.example', 'http:/evil.example', 'javascript:alert(1)', '/%00/evil.example',
  'evil.example', '', '/%E0%A4%A', 42, undefined, null,
];

t.test('localPath: only a path that normalises to this origin', async (t) => {
  for (const bad of HOSTILE) t.equal(localPath(bad), null, JSON.stringify(bad));
  t.equal(localPath('/chatbots/123?x=1#y'), '/chatbots/123?x=1#y');
  t.equal(localPath('/app'), '/app');
  t.equal(localPath('/app/data-sources?tag=a%20b'), '/app/data-sources?tag=a%20b', 'encoded text that is not a control character is fine');
  t.equal(localPath('/app/../settings'), '/settings', 'dot segments are resolved');
});

for (const variant of databaseVariants()) {
  t.test(`POST /login never redirects off the site (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app } = await buildTestApp(t, variant);
    const logIn = (redirect: string) => app.inject({
      method: 'POST', url: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `email=${encodeURIComponent(USERS.ann.email)}&password=${USERS.ann.password}&redirect=${encodeURIComponent(redirect)}`,
    });
    for (const bad of HOSTILE.filter((v): v is string => typeof v === 'string' && v !== '')) {
      const res = await logIn(bad);
      t.equal(res.statusCode, 302);
      t.equal(res.headers.location, '/settings/profile', `${JSON.stringify(bad)} falls back to the home page`);
    }
    // The form of the issue: the field itself carries the percent-encoded tab.
    const raw = await app.inject({
      method: 'POST', url: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `email=${encodeURIComponent(USERS.ann.email)}&password=${USERS.ann.password}&redirect=/%09/evil.example/`,
    });
    t.equal(raw.headers.location, '/settings/profile');
    t.equal((await logIn('/chatbots/123?x=1#y')).headers.location, '/chatbots/123?x=1#y', 'a local path is honoured');
  });
}
