import fs from 'node:fs/promises';
import path from 'node:path';
import { BusLogCorruptError } from '../errors.js';
import { fsyncDir } from './fsutil.js';

const FILE = 'consumer-offsets.json';

/**
 * The consumer group's committed offset of the events stream (the next offset to deliver).
 * Written as a new file, fsync'd, renamed over the old one and the directory fsync'd: after
 * a crash the file holds either the previous or the new offset, never a torn mix.
 */
export class OffsetStore {
  private constructor(private readonly dir: string, private value: number) {}

  static async open(dir: string): Promise<OffsetStore> {
    await fs.rm(path.join(dir, `${FILE}.tmp`), { force: true });
    let text: string;
    try {
      text = await fs.readFile(path.join(dir, FILE), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new OffsetStore(dir, 0);
      throw err;
    }
    const parsed = (() => { try { return JSON.parse(text) as { events?: unknown }; } catch { return {}; } })();
    if (typeof parsed.events !== 'string' || !/^\d+$/.test(parsed.events)) {
      // Never guess: restarting from 0 would silently redeliver everything, from the end would lose events.
      throw new BusLogCorruptError(`embedded bus: ${path.join(dir, FILE)} is unreadable; fix or remove it deliberately`);
    }
    return new OffsetStore(dir, Number(parsed.events));
  }

  get committed(): number { return this.value; }

  async commit(offset: number): Promise<void> {
    const file = path.join(this.dir, FILE);
    const tmp = `${file}.tmp`;
    const fh = await fs.open(tmp, 'w');
    try {
      // Decimal string, as Kafka reports offsets (see ConsumedMessage.offset).
      await fh.writeFile(JSON.stringify({ events: String(offset) }));
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, file);
    await fsyncDir(this.dir);
    this.value = offset;
  }
}
