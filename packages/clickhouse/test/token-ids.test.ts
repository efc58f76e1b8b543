import t from 'tap';
import fc from 'fast-check';
import { ID_SLOT_BITS, KnownTokenIds, TokenIdAllocator, tokenIdOf, type TokenIdRow, type TokenIdStore, type TokenRef } from '../src/token-ids.js';

/**
 * The numbering rule of token-ids.ts attacked with its store in memory: concurrent calls, a
 * second writer of the same slot (the consumer that took a partition over while the previous
 * one still finishes its inserts), writes that became visible in any order the rule allows, a
 * store that fails, a reset. Whatever happens: one id per (chatbot, token), never one id for
 * two tokens.
 */
const ref = (token: string, chatbot = 'bot'): TokenRef => ({ key: `${chatbot}\n${token}`, chatbot, token });

/** token_ids in memory; `lag` delays answers, so calls interleave. */
class MemoryStore implements TokenIdStore {
  rows: TokenIdRow[] = [];
  lookups = 0;
  constructor(private readonly lag = () => Promise.resolve()) {}
  async lookup(refs: readonly TokenRef[]) {
    this.lookups++;
    const snapshot = [...this.rows];
    await this.lag();
    return refs.map((r) => snapshot.filter((x) => x.chatbot_id === r.chatbot && x.token === r.token).map((x) => x.token_id).sort((a, b) => (a < b ? -1 : 1))[0]);
  }
  async tops(slot: number, chatbots: readonly string[]) {
    const snapshot = [...this.rows];
    await this.lag();
    const tops = new Map<string, number>();
    for (const r of snapshot) {
      if (!chatbots.includes(r.chatbot_id) || r.token_id >> ID_SLOT_BITS !== BigInt(slot)) continue;
      tops.set(r.chatbot_id, Math.max(tops.get(r.chatbot_id) ?? 0, Number(r.token_id & ((1n << ID_SLOT_BITS) - 1n))));
    }
    return tops;
  }
  async insert(rows: readonly TokenIdRow[]) {
    await this.lag();
    this.rows.push(...rows);
  }
}

/** Every (token → id) a set of assignments made: one id per token and one token per id, or the offending pairs. */
function violations(assigned: [string, bigint][]): string[] {
  const byToken = new Map<string, Set<bigint>>();
  const byId = new Map<bigint, Set<string>>();
  for (const [token, id] of assigned) {
    if (!byToken.has(token)) byToken.set(token, new Set());
    byToken.get(token)!.add(id);
    if (!byId.has(id)) byId.set(id, new Set());
    byId.get(id)!.add(token);
  }
  return [
    ...[...byToken].filter(([, ids]) => ids.size > 1).map(([token, ids]) => `${token} has ids ${[...ids].join(', ')}`),
    ...[...byId].filter(([, tokens]) => tokens.size > 1).map(([id, tokens]) => `id ${id} names ${[...tokens].join(', ')}`),
  ];
}

t.test('new tokens are numbered after the slot\'s stored top, in the order given; stored ones keep their id', async (t) => {
  const store = new MemoryStore();
  store.rows.push({ key: 'bot\nold', chatbot_id: 'bot', token: 'old', token_id: tokenIdOf(7, 41) });
  store.rows.push({ key: 'bot\nother-slot', chatbot_id: 'bot', token: 'other-slot', token_id: tokenIdOf(8, 900) });
  const a = new TokenIdAllocator(store, new KnownTokenIds(), 7);
  const { ids, fresh } = await a.assign([ref('x'), ref('old'), ref('y'), ref('x'), ref('z', 'bot2')]);
  t.same(ids, [tokenIdOf(7, 42), tokenIdOf(7, 41), tokenIdOf(7, 43), tokenIdOf(7, 42), tokenIdOf(7, 1)]);
  t.same(fresh.map((r) => r.token), ['x', 'y', 'z'], 'each new id once, to be stored before its rows');
  const again = await a.assign([ref('x')]);
  t.same(again.fresh.map((r) => r.token), ['x'], 'an id not confirmed stored is handed out as fresh again');
  a.confirm(again.fresh);
  t.same((await a.assign([ref('x')])).fresh, [], 'confirmed: known');
  t.equal(store.lookups, 1, 'known and given ids need no look-up');
});

t.test('calls on one allocator run one after another: two batches racing never share an id', async (t) => {
  const store = new MemoryStore(() => new Promise((r) => setTimeout(r, Math.random() * 5)));
  const a = new TokenIdAllocator(store, new KnownTokenIds(), 3);
  const batches = Array.from({ length: 20 }, (_, b) => Array.from({ length: 30 }, (_, i) => ref(`t${b * 20 + i}`)));
  const results = await Promise.all(batches.map((refs) => a.assign(refs)));
  const pairs = results.flatMap((r, b) => r.ids.map((id, i) => [batches[b][i].token, id] as [string, bigint]));
  t.same(violations(pairs), []);
});

/**
 * Writer A numbers a partition's log batch by batch and stores each batch's new ids in turn;
 * writer B takes the partition over at committed batch `c` (A has stored everything before c:
 * offsets commit only after) and numbers from there, while A goes on with the batches it had
 * in flight. What B sees of A's stores is whatever A stored so far, in A's order. The two must
 * agree on every token.
 */
t.test('two writers of one slot over the same log agree on every id, however their stores interleave', async (t) => {
  const tokens = fc.array(fc.constantFrom(...Array.from({ length: 25 }, (_, i) => `tok${i}`)), { minLength: 1, maxLength: 12 });
  const scenario = fc.record({
    log: fc.array(tokens, { minLength: 1, maxLength: 8 }),
    committed: fc.nat(),
    schedule: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
  });
  await fc.assert(fc.asyncProperty(scenario, async ({ log, committed, schedule }) => {
    const store = new MemoryStore();
    store.rows.push({ key: 'bot\ntok0', chatbot_id: 'bot', token: 'tok0', token_id: tokenIdOf(5, 3) });
    const a = new TokenIdAllocator(store, new KnownTokenIds(), 5);
    const b = new TokenIdAllocator(store, new KnownTokenIds(), 5);
    const start = committed % log.length;
    const assigned: [string, bigint][] = [];
    let nextA = 0;
    let nextB = start;
    // Each step lets one writer handle its next batch, storing its new ids before going on.
    for (const aFirst of schedule) {
      // B starts only where A committed: after A stored every batch before it.
      const writer = (aFirst && nextA < log.length) || nextB >= log.length || nextA < start ? 'a' : 'b';
      if (writer === 'a' && nextA >= log.length) break;
      const allocator = writer === 'a' ? a : b;
      const batch = log[writer === 'a' ? nextA++ : nextB++];
      const { ids, fresh } = await allocator.assign(batch.map((tok) => ref(tok)));
      await store.insert(fresh);
      allocator.confirm(fresh);
      batch.forEach((tok, i) => assigned.push([tok, ids[i]]));
    }
    const bad = violations(assigned);
    if (bad.length > 0) throw new Error(bad.join('; '));
  }), { numRuns: 300, seed: 56 });
  t.pass('300 interleavings');
});

t.test('a store that failed: the same ids are handed out again, and a reset forgets what was never stored', async (t) => {
  const store = new MemoryStore();
  const a = new TokenIdAllocator(store, new KnownTokenIds(), 2);
  const first = await a.assign([ref('p'), ref('q')]);
  // The insert of `first.fresh` failed: the batch is delivered again.
  const again = await a.assign([ref('q'), ref('p')]);
  t.same(again.ids, [first.ids[1], first.ids[0]], 'a redelivered batch gets the ids it had');
  t.same(again.fresh.map((r) => r.token).sort(), ['p', 'q'], 'and stores them');
  // Another writer took the partition, numbered `r` first and stored it; this one got it back.
  store.rows.push({ key: 'bot\nr', chatbot_id: 'bot', token: 'r', token_id: tokenIdOf(2, 1) });
  await a.reset();
  const after = await a.assign([ref('r'), ref('p')]);
  t.same(after.ids, [tokenIdOf(2, 1), tokenIdOf(2, 2)], 'the stored top is read again; the unstored ids are given anew');
  t.same(violations([...after.ids.map((id, i) => [['r', 'p'][i], id] as [string, bigint])]), []);
});

t.test('a slot past 2^40 ids refuses instead of wrapping into the next slot', async (t) => {
  const store = new MemoryStore();
  store.rows.push({ key: 'bot\nlast', chatbot_id: 'bot', token: 'last', token_id: tokenIdOf(9, 2 ** 40 - 1) });
  const a = new TokenIdAllocator(store, new KnownTokenIds(), 9);
  await t.rejects(a.assign([ref('one-too-many')]), RangeError);
});
