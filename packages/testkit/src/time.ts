export { DAY_MS } from '@chatlytics/core';

/** ClickHouse DateTime64(3, 'UTC') text form, as StoredEvent.received_at carries it. */
export function chTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** Inverse of chTime (the text form has no zone: it is UTC by contract). */
export function parseChTime(text: string): number {
  return Date.parse(`${text.replace(' ', 'T')}Z`);
}
