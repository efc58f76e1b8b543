import type { FastifyBaseLogger } from 'fastify';
import type { RawContentStorage } from './raw-content-storage.js';

/** Preview limit of raw content (see the endpoint details in services/dashboard/docs/api.md): "50 KB", counted in characters. */
export const RAW_CONTENT_PREVIEW_CHARS = 51_200;

/**
 * Cut raw content to the preview limit. Characters are Unicode code points, so the cut never
 * splits a surrogate pair and the counts in the note match what a user would call characters.
 */
export function truncateRawContent(content: string, limit = RAW_CONTENT_PREVIEW_CHARS): string {
  // Fast path: fewer UTF-16 units than the limit means fewer code points too.
  if (content.length <= limit) return content;
  let codePoints = 0;
  let cutAt = -1;
  for (let i = 0; i < content.length; i++) {
    if (codePoints === limit && cutAt === -1) cutAt = i;
    const unit = content.charCodeAt(i);
    // A high surrogate followed by a low one is a single character.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < content.length) {
      const next = content.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    codePoints++;
  }
  if (codePoints <= limit) return content;
  return `${content.slice(0, cutAt)}\n[truncated: showing ${limit} of ${codePoints} characters]`;
}

/**
 * A data source's raw content preview (see the endpoint details in services/dashboard/docs/api.md):
 * null when nothing is stored or it cannot be read; a failed read is logged, not fatal.
 */
export async function readRawPreview(storage: RawContentStorage, rawPath: string | null, log: FastifyBaseLogger, dataSourceId: string): Promise<string | null> {
  if (!rawPath) return null;
  try {
    const content = await storage.read(rawPath);
    return content === null ? null : truncateRawContent(content);
  } catch (err) {
    log.warn({ err, dataSourceId }, 'raw content could not be read');
    return null;
  }
}
