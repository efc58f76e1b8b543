import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { engineStyleError } from '../errors.js';
import { nativeCompress } from './native-compression.js';

/** Request and response plumbing of the HTTP interface: bodies, compression, headers, query ids. */
const gzip = promisify(zlib.gzip);
const deflate = promisify(zlib.deflate);
const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);

export async function requestBody(req: FastifyRequest, maxOutputLength: number): Promise<Buffer> {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  const encoding = (header(req, 'content-encoding') ?? '').toLowerCase();
  if (raw.length === 0 || encoding === '' || encoding === 'identity') return raw;
  try {
    // maxOutputLength: a small compressed body must not expand into unbounded memory.
    if (encoding === 'gzip') return await gunzip(raw, { maxOutputLength });
    if (encoding === 'deflate') return await inflate(raw, { maxOutputLength });
  } catch (err) {
    throw engineStyleError(36, 'BAD_ARGUMENTS', `Cannot decompress the ${encoding} request body: ${(err as Error).message}`);
  }
  throw engineStyleError(36, 'BAD_ARGUMENTS', `Unsupported Content-Encoding ${encoding}`);
}

/** compress=1 (ClickHouse's block framing) first, then HTTP compression on top when both are asked for, as ClickHouse does. */
export async function compress(req: FastifyRequest, reply: FastifyReply, search: Record<string, string>, raw: Buffer): Promise<Buffer> {
  const payload = search.compress === '1' ? await nativeCompress(raw) : raw;
  if (search.enable_http_compression !== '1' || payload.length === 0) return payload;
  const accepted = (header(req, 'accept-encoding') ?? '').toLowerCase();
  if (/\bgzip\b/.test(accepted)) {
    reply.header('Content-Encoding', 'gzip');
    return gzip(payload);
  }
  if (/\bdeflate\b/.test(accepted)) {
    reply.header('Content-Encoding', 'deflate');
    return deflate(payload);
  }
  return payload; // identity is always acceptable
}

/** Repeated query-string keys arrive as arrays; like ClickHouse, the first value counts. */
export function flatten(q: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(q ?? {})) out[k] = String(Array.isArray(v) ? v[0] : v);
  return out;
}

export function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const QUERY_IDS = new WeakMap<FastifyRequest, string>();
export function queryId(req: FastifyRequest): string {
  let id = QUERY_IDS.get(req);
  if (!id) {
    const given = (req.query as Record<string, unknown> | undefined)?.query_id;
    id = typeof given === 'string' && given !== '' ? given : randomUUID();
    QUERY_IDS.set(req, id);
  }
  return id;
}
