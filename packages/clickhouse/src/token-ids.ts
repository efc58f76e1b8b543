import { sqlFile } from './sql-files.js';
import type { ClickHouseEngine, InsertOptions } from './types.js';

/**
 * Dense token ids (clickhouse/README.md, "Token ids"): every (chatbot, token) has one id,
 * `slot << 40 | n`, and no id names two tokens. The statistics' hourly sets are roaring bitmaps
 * of these ids, so both halves of the rule are exactness.
 *
 * Who numbers: the writer that owns the token's bus partition, in memory, in the order the
 * tokens first appear in the partition's log, after the largest id its slot has in `token_ids`
 * (slot = ID_SLOTS.consumer + partition). A token's events all travel in one partition (the bus
 * key is the token), so one writer at a time meets a token new; a second writer of the same
 * partition (the consumer that took it over while the previous one still finishes an insert)
 * reads the same log from the same stored prefix and so gives the same ids: a found id of its
 * own slot moves its numbering on ("raise"). Runs outside the bus (a replay, a test, a
 * benchmark) number in a slot no one else uses (ID_SLOTS.runs and above).
 *
 * What keeps it true: an id is stored in `token_ids` before any row that carries it
 * (`TokenIdAllocator.assign` returns the rows to store; the writer stores them, then its
 * events), and the stores of one writer happen one after another, so `token_ids` always holds
 * a prefix of each slot's numbering. Ids are BigInt: slots of older stores reach 2^55.
 */
export const ID_SLOT_BITS = 40n;
const N_MAX = 2 ** 40 - 1;

/** Slots by writer: the consumer's per partition, then runs. An id stays below 2^53 in the slots given now. */
export const ID_SLOTS = { consumer: 1024, runs: 4096, max: 8191 } as const;

export const consumerIdSlot = (partition: number) => {
  const slot = ID_SLOTS.consumer + partition;
  if (slot >= ID_SLOTS.runs) throw new RangeError(`partition ${partition} has no token id slot (at most ${ID_SLOTS.runs - ID_SLOTS.consumer} partitions)`);
  return slot;
};

export const tokenIdOf = (slot: number, n: number) => (BigInt(slot) << ID_SLOT_BITS) | BigInt(n);

/** A token to number: `key` identifies (chatbot, token) for the caller's caches (any injective spelling). */
export interface TokenRef {
  key: string;
  chatbot: string;
  token: string;
}

/** A row of `token_ids` to store before the events that carry its id. */
export interface TokenIdRow {
  key: string;
  chatbot_id: string;
  token: string;
  token_id: bigint;
}

/** Where ids are read and stored: `token_ids` (createTokenIdStore), or a fake in unit tests. */
export interface TokenIdStore {
  /** The stored id of each ref, aligned with `refs` (undefined: none). */
  lookup(refs: readonly TokenRef[]): Promise<(bigint | undefined)[]>;
  /** Per chatbot, the largest n (low 40 bits) the slot has given; absent: none yet. */
  tops(slot: number, chatbots: readonly string[]): Promise<Map<string, number>>;
  insert(rows: readonly TokenIdRow[], opts: InsertOptions): Promise<void>;
}

const STORED_SQL = sqlFile('ids/stored_token_ids');
const TOPS_SQL = sqlFile('ids/slot_tops');
const pairKey = (chatbot: string, token: string) => JSON.stringify([chatbot, token]);

export function createTokenIdStore(clickhouse: ClickHouseEngine): TokenIdStore {
  return {
    async lookup(refs) {
      const rows = await clickhouse.query<{ chatbot_id: string; token: string; token_id: string }>(STORED_SQL, {
        chatbots: refs.map((r) => r.chatbot), tokens: refs.map((r) => r.token),
      });
      const found = new Map(rows.map((r) => [pairKey(r.chatbot_id, r.token), BigInt(r.token_id)]));
      return refs.map((r) => found.get(pairKey(r.chatbot, r.token)));
    },
    async tops(slot, chatbots) {
      const rows = await clickhouse.query<{ chatbot_id: string; top: string }>(TOPS_SQL, {
        chatbots, low: tokenIdOf(slot, 0).toString(), high: tokenIdOf(slot + 1, 0).toString(),
      });
      return new Map(rows.map((r) => [r.chatbot_id, Number(BigInt(r.top) & BigInt(N_MAX))]));
    },
    async insert(rows, opts) {
      await clickhouse.insert('token_ids', rows.map((r) => ({ chatbot_id: r.chatbot_id, token: r.token, token_id: r.token_id.toString() })), opts);
    },
  };
}

/**
 * Ids known to be stored, shared by a writer's allocators: a stored id never changes, so
 * nothing here goes stale. Two generations (the older dropped when the newer fills), so the
 * tokens of active visitors stay while memory is bounded.
 */
export class KnownTokenIds {
  private current = new Map<string, bigint>();
  private previous = new Map<string, bigint>();
  constructor(private readonly generation = 250_000) {}

  get(key: string): bigint | undefined {
    const id = this.current.get(key);
    if (id !== undefined) return id;
    const old = this.previous.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, id: bigint): void {
    if (this.current.size >= this.generation) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, id);
  }
}

export interface Assigned {
  /** The id of each ref, aligned with the refs. */
  ids: bigint[];
  /** Rows to store in `token_ids` before rows carrying these ids: every id here not yet confirmed stored. */
  fresh: TokenIdRow[];
}

/**
 * The numbering of one slot, for one writer. Calls run one after another whatever the caller
 * does (a chain), so two batches never read the same top.
 */
export class TokenIdAllocator {
  /** Ids given here whose `token_ids` row is not confirmed stored: handed out again as fresh. */
  private readonly pending = new Map<string, bigint>();
  /** Per chatbot, the last n given in this slot (loaded from token_ids at first need). */
  private readonly tops = new Map<string, number>();
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly store: TokenIdStore, private readonly known: KnownTokenIds, readonly slot: number) {}

  /** The ids of `refs`, new tokens numbered in the order given (a ref may repeat). */
  assign(refs: readonly TokenRef[]): Promise<Assigned> {
    return this.serial(() => this.assignNow(refs));
  }

  /** These rows are stored in `token_ids`: known from now on. */
  confirm(rows: readonly TokenIdRow[]): void {
    for (const r of rows) {
      if (this.pending.get(r.key) !== r.token_id) continue;
      this.pending.delete(r.key);
      this.known.set(r.key, r.token_id);
    }
  }

  /**
   * The slot's partition was (re)assigned to this writer: another writer may have numbered in
   * the meantime, so the tops are read again, and ids never stored are forgotten (whoever stores
   * its first row now numbers the token).
   */
  reset(): Promise<void> {
    return this.serial(async () => {
      this.pending.clear();
      this.tops.clear();
    });
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async assignNow(refs: readonly TokenRef[]): Promise<Assigned> {
    const ids = new Array<bigint>(refs.length);
    const fresh: TokenIdRow[] = [];
    const freshKeys = new Set<string>();
    const addFresh = (r: TokenRef, id: bigint) => {
      if (freshKeys.has(r.key)) return;
      freshKeys.add(r.key);
      fresh.push({ key: r.key, chatbot_id: r.chatbot, token: r.token, token_id: id });
    };
    const unknown: number[] = [];
    for (let i = 0; i < refs.length; i++) {
      const r = refs[i];
      const id = this.known.get(r.key);
      if (id !== undefined) { ids[i] = id; continue; }
      const given = this.pending.get(r.key);
      if (given !== undefined) { ids[i] = given; addFresh(r, given); continue; }
      unknown.push(i);
    }
    if (unknown.length === 0) return { ids, fresh };

    const stored = await this.store.lookup(unknown.map((i) => refs[i]));
    const toNumber: number[] = [];
    unknown.forEach((i, j) => {
      const id = stored[j];
      if (id === undefined) { toNumber.push(i); return; }
      ids[i] = id;
      this.known.set(refs[i].key, id);
      this.raise(refs[i].chatbot, id);
    });
    if (toNumber.length === 0) return { ids, fresh };

    const missingTops = [...new Set(toNumber.map((i) => refs[i].chatbot))].filter((c) => !this.tops.has(c));
    if (missingTops.length > 0) {
      const tops = await this.store.tops(this.slot, missingTops);
      for (const c of missingTops) this.tops.set(c, tops.get(c) ?? 0);
    }
    for (const i of toNumber) {
      const r = refs[i];
      let id = this.pending.get(r.key);
      if (id === undefined) {
        const n = this.tops.get(r.chatbot)! + 1;
        if (n > N_MAX) throw new RangeError(`token id slot ${this.slot} of chatbot ${r.chatbot} is full`);
        this.tops.set(r.chatbot, n);
        id = tokenIdOf(this.slot, n);
        this.pending.set(r.key, id);
      }
      ids[i] = id;
      addFresh(r, id);
    }
    return { ids, fresh };
  }

  /** A stored id of this slot beyond the local top: another writer of the slot got there first. */
  private raise(chatbot: string, id: bigint): void {
    if (id >> ID_SLOT_BITS !== BigInt(this.slot)) return;
    const top = this.tops.get(chatbot);
    if (top === undefined) return;
    const n = Number(id & BigInt(N_MAX));
    if (n > top) this.tops.set(chatbot, n);
  }
}

/** How long a claim waits before it reads who else claimed: longer than an insert takes to be visible. */
export const CLAIM_SETTLE_MS = 1000;

/**
 * A numbering slot for one writer run outside the bus (a replay), from ID_SLOTS.runs up: the
 * slot after the last one claimed in the last day, kept if this run's claim is the first of the
 * slot once every claim made meanwhile is visible (a run that loses takes the next slot). A
 * slot used again later is safe: its numbering goes on from its largest stored id.
 */
export async function claimRunSlot(clickhouse: ClickHouseEngine, run: string, settleMs = CLAIM_SETTLE_MS): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const [{ last }] = await clickhouse.query<{ last: string | number }>(
      'SELECT max(slot) AS last FROM id_slot_claims WHERE claimed_at > now64(3) - INTERVAL 1 DAY');
    const slot = Number(last) >= ID_SLOTS.runs && Number(last) < ID_SLOTS.max ? Number(last) + 1 : ID_SLOTS.runs;
    await clickhouse.insert('id_slot_claims', [{ slot, run }]);
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const [{ first }] = await clickhouse.query<{ first: string }>(
      'SELECT argMin(run, (claimed_at, run)) AS first FROM id_slot_claims WHERE slot = {slot:UInt16} AND claimed_at > now64(3) - INTERVAL 1 DAY', { slot });
    if (first === run) return slot;
  }
  throw new Error('no token id slot could be claimed for this run');
}
