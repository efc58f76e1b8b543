import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@chatlytics/core';

/**
 * Where data sources' raw content lives, addressed by their `rawPath`. Local directory today;
 * an object store later implements the same two calls.
 */
export interface RawContentStorage {
  /** The content at `rawPath`, or null when nothing is stored there. Throws on other failures. */
  read(rawPath: string): Promise<string | null>;
  write(rawPath: string, content: string): Promise<void>;
}

export class StoragePathError extends AppError {
  override name = 'StoragePathError';
  constructor(rawPath: string) {
    super('STORAGE_PATH_OUTSIDE_ROOT', `raw path ${JSON.stringify(rawPath)} escapes the storage root`, { statusCode: 500 });
  }
}

/** Files under `root` (DATA_DIR/storage); a path that would leave the root is refused. */
export function createLocalRawContentStorage(root: string): RawContentStorage {
  const base = path.resolve(root);
  const resolve = (rawPath: string) => {
    // NUL bytes would be cut by the OS below the checks; absolute paths would ignore the root.
    if (rawPath.includes('\0') || path.isAbsolute(rawPath)) throw new StoragePathError(rawPath);
    const full = path.resolve(base, rawPath);
    if (full !== base && full.startsWith(base + path.sep)) return full;
    throw new StoragePathError(rawPath);
  };
  return {
    async read(rawPath) {
      const full = resolve(rawPath);
      try {
        return await fs.readFile(full, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async write(rawPath, content) {
      const full = resolve(rawPath);
      await fs.mkdir(path.dirname(full), { recursive: true });
      // Write then rename: a reader never sees a half-written file.
      const tmp = `${full}.${process.pid}.tmp`;
      await fs.writeFile(tmp, content, 'utf8');
      await fs.rename(tmp, full);
    },
  };
}
