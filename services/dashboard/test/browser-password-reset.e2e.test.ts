/**
 * The reset flow in a real browser (Chromium through playwright-core): what a person does,
 * against a listening server. Also proves the no-referrer reset page can post its form
 * (browsers send `Origin: null` from it) and that the flash messages reach the next page.
 */
import fs from 'node:fs';
import net from 'node:net';
import t from 'tap';
import { chromium } from 'playwright-core';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { ANN, buildResetApp, openSeededDatabase, resetLinkOf, testClock, waitForMail } from './password-reset-harness.js';

const CHROMIUM = '/usr/bin/chromium';
// Under CI a missing browser is a failure, never a skip (CI installs chromium).
const skip = !fs.existsSync(CHROMIUM) && process.env.CI !== 'true' ? `${CHROMIUM} not installed` : false;

/** A free port, so that APP_URL (fixed before the app is built) names the real origin. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

t.test('a guest resets the password in Chromium and logs in with the new one', { skip }, async (t) => {
  const pglite = databaseVariants().find((v) => v.name === 'pglite')!;
  const tdb = await openSeededDatabase(t, pglite);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  // Real time: the browser drops a session cookie whose expiry lies in the past of its own clock.
  const h = await buildResetApp(t, { postgres: tdb.postgres, dataDir: tdb.dataDir, env: { APP_URL: origin }, clock: testClock(new Date()) });
  await h.app.listen({ port, host: '127.0.0.1' });

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);

  await page.goto(`${origin}/login`);
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.waitForURL(`${origin}/forgot-password`);
  await page.getByLabel('E-mail address').fill(ANN.email);
  await page.getByRole('button', { name: 'Send password reset link' }).click();
  await page.waitForURL(`${origin}/forgot-password`);
  t.equal(await page.getByRole('status').textContent(), "If an account with that email exists, we've sent a password reset link.");

  const link = resetLinkOf(await waitForMail(h.outboxDir, ANN.email));
  t.ok(link.url.startsWith(`${origin}/reset-password/`), 'the link points at APP_URL');
  await page.goto(link.url);
  t.equal(await page.getByLabel('E-mail address').inputValue(), ANN.email.toLowerCase(), 'e-mail filled from the link');
  const newPassword = 'browser-chosen password';
  await page.getByLabel(/^New password/).fill(newPassword);
  await page.getByLabel('Confirm new password').fill(newPassword);
  await page.getByRole('button', { name: 'Reset password' }).click();
  await page.waitForURL(`${origin}/login`);
  t.equal(await page.getByRole('status').textContent(), 'Your password has been reset.');

  await page.getByLabel('E-mail address').fill(ANN.email);
  await page.getByLabel('Password').fill(newPassword);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${origin}/settings/profile`);
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Profile settings');
  t.equal(await page.locator('#profile-email').textContent(), ANN.email.toLowerCase());

  await page.goto(link.url);
  await page.getByLabel(/^New password/).fill('yet another password');
  await page.getByLabel('Confirm new password').fill('yet another password');
  await page.getByRole('button', { name: 'Reset password' }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/reset-password/'));
  t.match(await page.getByRole('alert').textContent(), 'This password reset token is invalid.', 'a used link is refused on the form');
});
