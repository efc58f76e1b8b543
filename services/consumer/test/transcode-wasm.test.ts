import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import asc from 'assemblyscript/asc';

/**
 * src/transcode.wasm is checked in (no build step at start-up or in `npm ci`), so it must be
 * exactly what its source compiles to: this rebuilds it with the pinned compiler and the
 * checked-in options and compares the bytes. A failure means `npm run build:wasm` was not run
 * after editing wasm/transcode.ts (or the compiler version changed).
 */
t.test('the checked-in module is the build of its source', async (t) => {
  const dir = fileURLToPath(new URL('../wasm/', import.meta.url));
  const outputs = new Map<string, Uint8Array>();
  const { error, stderr } = await asc.main([`${dir}transcode.ts`, '--config', `${dir}asconfig.json`, '--outFile', 'rebuilt.wasm'], {
    // Kept in memory: the test never writes next to the sources.
    writeFile: (name: string, contents: Uint8Array | string) => { outputs.set(name, typeof contents === 'string' ? Buffer.from(contents) : contents); },
  });
  t.error(error, stderr.toString());
  const rebuilt = outputs.get('rebuilt.wasm');
  t.ok(rebuilt, 'the compiler produced a module');
  const checkedIn = readFileSync(new URL('../src/transcode.wasm', import.meta.url));
  t.ok(Buffer.from(rebuilt!).equals(checkedIn), 'byte for byte the same as src/transcode.wasm');
});
