import t from 'tap';
import { setTimeout } from 'node:timers/promises';
import { pacedCommand } from '../src/paced.js';
import type { ClickHouseEngine } from '../src/types.js';

/** A privacy job's statements are paced by what they took: a long one is followed by twice its time, a short one by nothing. */
const engineTaking = (ms: number) => ({ command: () => setTimeout(ms) }) as unknown as ClickHouseEngine;

t.test('a statement of 50 ms or more: a wait of twice its time', async (t) => {
  const waits: number[] = [];
  await pacedCommand(engineTaking(80), 2, async (ms) => { waits.push(ms); })('ALTER …');
  t.equal(waits.length, 1);
  t.ok(waits[0]! >= 2 * 79 && waits[0]! < 2 * 500, `waited ${waits[0]} ms`);
});

t.test('a shorter statement, or pace 0: no wait', async (t) => {
  const waits: number[] = [];
  const record = async (ms: number) => { waits.push(ms); };
  await pacedCommand(engineTaking(0), 2, record)('ALTER …');
  await pacedCommand(engineTaking(80), 0, record)('ALTER …');
  t.same(waits, []);
});
