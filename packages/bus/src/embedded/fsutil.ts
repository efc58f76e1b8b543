import fs from 'node:fs/promises';

/**
 * fsync a directory: makes a created, renamed or removed entry durable. Without it a new
 * segment file (or the renamed offsets file) may be missing after a power loss even though
 * its contents were fsync'd.
 */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Writes all of `buf` at `position` (a regular file may still accept a short write, e.g. near ENOSPC). */
export async function writeFully(fh: fs.FileHandle, buf: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < buf.length) {
    const { bytesWritten } = await fh.write(buf, written, buf.length - written, position + written);
    if (bytesWritten === 0) throw new Error(`write made no progress at byte ${position + written}`);
    written += bytesWritten;
  }
}
