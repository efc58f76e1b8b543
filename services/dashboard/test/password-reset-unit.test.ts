import t from 'tap';
import { sha256Hex } from '../src/crypto/credentials.js';
import { newPasswordErrors } from '../src/auth/password-rules.js';
import { createTokenSealer, newResetToken, tokenMatches } from '../src/password-reset/tokens.js';
import { escapeHtml, html, raw } from '../src/html/html.js';

t.test('reset tokens: 256 random bits, stored as SHA-256, compared in constant time', async (t) => {
  const tokens = Array.from({ length: 50 }, () => newResetToken());
  t.equal(new Set(tokens.map((x) => x.token)).size, 50, 'never repeats');
  for (const { token, hash } of tokens) {
    t.equal(Buffer.from(token, 'base64url').length, 32);
    t.equal(hash, sha256Hex(token));
  }
  const { token, hash } = tokens[0];
  t.ok(tokenMatches(token, hash));
  t.notOk(tokenMatches(token + 'x', hash));
  t.notOk(tokenMatches(token, 'not-hex'), 'a malformed stored digest never matches');
  t.notOk(tokenMatches(token, ''));
});

t.test('sealed tokens: open only with the same secret, tampering detected', async (t) => {
  const sealer = createTokenSealer('a'.repeat(40));
  const sealed = sealer.seal('the-token');
  t.not(sealed, sealer.seal('the-token'), 'a fresh IV each time');
  t.notMatch(sealed, 'the-token');
  t.equal(sealer.open(sealed), 'the-token');
  t.equal(createTokenSealer('b'.repeat(40)).open(sealed), null, 'another secret');
  const bytes = Buffer.from(sealed, 'base64url');
  bytes[bytes.length - 1] ^= 1;
  t.equal(sealer.open(bytes.toString('base64url')), null, 'a flipped bit');
  t.equal(sealer.open('short'), null);
});

t.test('new password rules: 8 to 1024 characters (code points), confirmation must match', async (t) => {
  t.same(newPasswordErrors('12345678', '12345678'), {});
  t.same(newPasswordErrors('1234567', '1234567'), { password: ['The password field must be at least 8 characters.'] });
  t.same(newPasswordErrors('😀😀😀😀😀😀😀😀', '😀😀😀😀😀😀😀😀'), {}, 'eight emoji are eight characters');
  t.same(newPasswordErrors('x'.repeat(1025), 'x'.repeat(1025)), { password: ['The password field must not be greater than 1024 characters.'] });
  t.same(newPasswordErrors('short', 'other'), {
    password: ['The password field must be at least 8 characters.', 'The password field confirmation does not match.'],
  });
});

t.test('html: every interpolation escaped unless marked raw', async (t) => {
  t.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  const evil = '<script>';
  t.equal(html`<p title="${evil}">${evil}${[evil, raw('<br>')]}${null}${false}</p>`.html,
    '<p title="&lt;script&gt;">&lt;script&gt;&lt;script&gt;<br></p>');
});
