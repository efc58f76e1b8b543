/**
 * The enumeration defence of POST /forgot-password (see the password reset rules in services/dashboard/README.md; the Laravel #13658 class of bug):
 * response times for unknown, known and throttled e-mails must not differ measurably. Many
 * interleaved samples, compared with a rank test (robust to the outliers a shared machine
 * produces), at a conservative level. A positive control proves the same procedure does
 * detect one extra database write for known e-mails, so the test is able to fail.
 */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { sql } from 'drizzle-orm';
import { jobs as emailJobs, passwordResetTokens } from '@chatlytics/postgres';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createUserRepository } from '../src/repositories/index.js';
import { ANN, buildResetApp, openSeededDatabase, rows, waitFor, type ResetTestApp } from './password-reset-harness.js';

/** Per class. Enough that a shift of a fraction of the spread is found; ~2 s per app here. */
const SAMPLES = 200;
const WARM_UP = 40;
/** Three comparisons at 0.001 each: a false alarm in about one run of 330. */
const ALPHA = 0.001;

/** Standard normal CDF (Abramowitz & Stegun 7.1.26, error < 1.5e-7: ample for a test at 0.001). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const k = 1 / (1 + 0.3275911 * x);
  const erf = 1 - (((((1.061405429 * k - 1.453152027) * k) + 1.421413741) * k - 0.284496736) * k + 0.254829592) * k * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Two-sided Mann-Whitney U test (normal approximation with tie correction): the p-value. */
export function mannWhitneyP(a: number[], b: number[]): number {
  const all = [...a.map((v) => ({ v, g: 0 })), ...b.map((v) => ({ v, g: 1 }))].sort((x, y) => x.v - y.v);
  const n = all.length;
  let rankSumA = 0;
  let tieTerm = 0;
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && all[j + 1].v === all[i].v) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if (all[k].g === 0) rankSumA += rank;
    const ties = j - i + 1;
    tieTerm += ties ** 3 - ties;
    i = j + 1;
  }
  const [n1, n2] = [a.length, b.length];
  const u = rankSumA - (n1 * (n1 + 1)) / 2;
  const sigma = Math.sqrt(((n1 * n2) / 12) * ((n + 1) - tieTerm / (n * (n - 1))));
  if (sigma === 0) return 1;
  const z = (u - (n1 * n2) / 2) / sigma;
  return 2 * (1 - normalCdf(Math.abs(z)));
}

const median = (xs: number[]) => { const s = [...xs].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };

function shuffle<T>(xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = randomBytes(4).readUInt32LE() % (i + 1);
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

type Kind = 'unknown' | 'known' | 'throttled';

/** Interleaved rounds, each class once per round in random order, so drift hits all classes alike. */
async function sample(h: ResetTestApp, knownEmails: string[]): Promise<Record<Kind, number[]>> {
  const times: Record<Kind, number[]> = { unknown: [], known: [], throttled: [] };
  const emailFor = (kind: Kind, i: number) =>
    kind === 'unknown' ? `nobody-${i}-${randomBytes(3).toString('hex')}@nowhere.test` : kind === 'known' ? knownEmails[i] : ANN.email;
  for (let round = 0; round < WARM_UP + SAMPLES; round++) {
    for (const kind of shuffle<Kind>(['unknown', 'known', 'throttled'])) {
      const payload = { email: emailFor(kind, round) };
      const start = process.hrtime.bigint();
      const res = await h.app.inject({ method: 'POST', url: '/forgot-password', headers: { accept: 'application/json' }, payload });
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
      if (res.statusCode !== 200) throw new Error(`unexpected ${res.statusCode}: ${res.body}`);
      if (round >= WARM_UP) times[kind].push(elapsed);
    }
  }
  return times;
}

t.test('Mann-Whitney: no difference between equal samples, a clear one between shifted samples', async (t) => {
  const base = Array.from({ length: 200 }, (_, i) => (i * 7919) % 200);
  t.ok(mannWhitneyP(base, [...base].reverse()) > 0.9);
  t.ok(mannWhitneyP(base, base.map((x) => x + 40)) < 1e-6);
  t.ok(mannWhitneyP([1, 1, 1], [1, 1, 1]) === 1, 'all ties');
});

t.test('forgot-password answers unknown, known and throttled e-mails in indistinguishable time', async (t) => {
  const pglite = databaseVariants().find((v) => v.name === 'pglite')!;
  const tdb = await openSeededDatabase(t, pglite);
  const users = createUserRepository({ db: tdb.postgres.db });
  const ann = await users.findByEmail(ANN.email);
  // Fresh known addresses, one per round: each is looked up and gets a token (not throttled).
  const knownEmails = Array.from({ length: WARM_UP + SAMPLES }, (_, i) => `known-${i}@shop-a.test`);
  for (const email of knownEmails) await users.create({ accountId: ann!.accountId, email, passwordHash: ann!.passwordHash });
  const rateLimits = { requestsPerMinute: 100_000 };

  // The production poll interval: the worker sends in the background as it would in production.
  const h = await buildResetApp(t, { postgres: tdb.postgres, dataDir: tdb.dataDir, tuning: { rateLimits, mail: { pollIntervalMs: 1_000 } } });
  // Ann's token is issued before measuring, so every request for her is a throttled one.
  await h.app.inject({ method: 'POST', url: '/forgot-password', headers: { accept: 'application/json' }, payload: { email: ANN.email } });
  await waitFor('Ann\'s token', async () => rows(await tdb.postgres.db.execute(sql`select 1 from password_reset_tokens`)).length === 1);

  const times = await sample(h, knownEmails);
  const report = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, `${median(v).toFixed(3)} ms`]));
  t.comment(`medians: ${JSON.stringify(report)}`);
  for (const [a, b] of [['known', 'unknown'], ['throttled', 'unknown'], ['known', 'throttled']] as [Kind, Kind][]) {
    const p = mannWhitneyP(times[a], times[b]);
    t.ok(p > ALPHA, `${a} vs ${b}: no significant difference (p = ${p.toPrecision(3)})`);
  }

  t.test('positive control: the naive flow (token and mail job written for known e-mails only) is detected', async (t) => {
    await h.app.close();
    // The naive implementation: look the address up, write a token only when it has an account.
    const leaky = await buildResetApp(t, {
      postgres: tdb.postgres, dataDir: tdb.dataDir, tuning: { rateLimits, mail: { worker: false } },
      beforeRegister: (app) => app.addHook('preHandler', async (req) => {
        const email = (req.body as { email?: string } | undefined)?.email;
        if (req.url !== '/forgot-password' || !email) return;
        if (await users.findByEmail(email)) {
          await tdb.postgres.db.insert(passwordResetTokens).values({ email: email.toLowerCase(), tokenHash: 'x'.repeat(64) })
            .onConflictDoUpdate({ target: passwordResetTokens.email, set: { tokenHash: 'y'.repeat(64) } });
          await tdb.postgres.db.insert(emailJobs).values({ kind: 'control', payload: {}, status: 'sent' });
        }
      }),
    });
    const leak = await sample(leaky, knownEmails);
    const p = mannWhitneyP(leak.known, leak.unknown);
    t.comment(`control medians: known ${median(leak.known).toFixed(3)} ms, unknown ${median(leak.unknown).toFixed(3)} ms`);
    t.ok(p < ALPHA, `the leak is found (p = ${p.toPrecision(3)})`);
  });
});
