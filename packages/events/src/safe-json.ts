/**
 * JSON parsing that refuses prototype-poisoning payloads (`__proto__`, `constructor.prototype`),
 * the same rule as Fastify's secure-json-parse. JSON.parse itself never assigns a prototype,
 * but a payload carrying such keys becomes dangerous the moment anyone merges it into another
 * object, so it is rejected at the door rather than trusted to stay unmerged.
 */
export class PoisonedJsonError extends SyntaxError {
  override name = 'PoisonedJsonError';
  constructor() {
    super('Object contains a forbidden prototype property');
  }
}

// The keys can arrive \u-escaped ("\u005f_proto__"); any escape sequence therefore also
// triggers the full scan. Clean payloads (the overwhelming majority) skip the scan entirely.
const SUSPICIOUS = /__proto__|constructor|\\u/;

/** Throws SyntaxError for malformed JSON and PoisonedJsonError for poisoned keys. */
export function parseJsonSafely(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (SUSPICIOUS.test(text) && isPoisoned(value)) throw new PoisonedJsonError();
  return value;
}

/**
 * True when any object in the tree has an own `__proto__` key, or a `constructor` object with
 * a `prototype` key. Iterative: JSON.parse accepts nesting far deeper than the call stack.
 */
export function isPoisoned(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const child of node) stack.push(child);
      continue;
    }
    if (Object.hasOwn(node, '__proto__')) return true;
    const ctor = (node as Record<string, unknown>).constructor;
    if (Object.hasOwn(node, 'constructor') && ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) {
      return true;
    }
    for (const key of Object.keys(node)) stack.push((node as Record<string, unknown>)[key]);
  }
  return false;
}
