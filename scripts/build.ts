/**
 * `npm run build [-- ingest consumer …]`: each service's entry point as one JavaScript file in
 * `dist/`, which the `start` scripts run with plain `node`.
 *
 * Why: run through tsx, a service carries the TypeScript loader for its whole life. The loader's
 * hooks run in a thread of their own, a second JavaScript heap. The ingest service took 169 MB RSS
 * at rest under tsx and 105 MB as a bundle. The bundle runs the same code; only the loading changes.
 *
 * What is bundled: the workspace's own TypeScript (`@chatlytics/*` and relative imports). What is
 * not: every npm dependency (native addons such as chdb, packages that find their own files next to
 * them such as @fastify/swagger-ui or PGlite's wasm). Node resolves those from `node_modules` as
 * usual, so the output must stay inside the repository (`dist/` by default).
 * Files the sources read next to themselves (SQL in clickhouse/, migrations, templates, assets, the
 * tracker script, a wasm module) are found through `import.meta.url`. Each module's
 * `import.meta.url` is rewritten to its source file's URL, relative to the bundle, so those
 * reads are unchanged and the tree can move as a whole.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Spelled in two pieces so that this file, when bundled itself, has
// no string that the rewrite below would take for code.
const META_URL = 'import.meta' + '.url';

/** The entry points `npm run build` makes, by output name (`dist/<name>.js`). */
export const SERVICE_ENTRIES: Record<string, string> = {
  standalone: 'services/standalone/src/standalone.ts',
  ingest: 'services/ingest/src/server.ts',
  consumer: 'services/consumer/src/server.ts',
  dashboard: 'services/dashboard/src/server.ts',
};

/** Keeps npm dependencies out of the bundle; rewrites each source's import.meta.url (see the header). */
function workspacePlugin(outdir: string): esbuild.Plugin {
  return {
    name: 'chatlytics-workspace',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) =>
        (args.path.startsWith('@chatlytics/') || args.path.startsWith('node:') ? undefined : { path: args.path, external: true }));
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        let contents = await fs.readFile(args.path, 'utf8');
        if (contents.includes(META_URL)) {
          const relative = path.relative(outdir, args.path).split(path.sep).join('/');
          contents = contents.replaceAll(META_URL, `new URL(${JSON.stringify(relative)}, ${META_URL}).href`);
        }
        return { contents, loader: 'ts' };
      });
    },
  };
}

/**
 * Bundles `entries` (name → source path, relative to the repository) into `outdir` (absolute,
 * inside the repository); resolves with the entry bundles' paths. Each file is written to a
 * temporary name and renamed, so a process starting meanwhile never loads half a bundle. Chunks
 * of earlier builds are left in place (named by content hash, one may still be loading in a
 * service started a moment ago); `rm -rf dist` is safe whenever no service is starting.
 */
export async function buildBundles(entries: Record<string, string>, outdir = path.join(root, 'dist')): Promise<string[]> {
  const result = await esbuild.build({
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, entry]) => [name, path.resolve(root, entry)])),
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    // A dynamic import() stays lazy in its own chunk: without splitting, the npm modules it
    // pulls in (chdb's 300 MB library for one) would be loaded at start-up by every bundle.
    splitting: true,
    // Chunks beside the entries: a module's rewritten import.meta.url is relative to outdir.
    chunkNames: '[name]-[hash]',
    metafile: true,
    // Dependencies written as CommonJS that the bundle calls `require` on (through esbuild's shim).
    banner: { js: `import { createRequire as __chatlyticsCreateRequire } from 'node:module'; const require = __chatlyticsCreateRequire(${META_URL});` },
    plugins: [workspacePlugin(outdir)],
    write: false,
    logLevel: 'warning',
  });
  for (const file of result.outputFiles) {
    await fs.mkdir(path.dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    await fs.writeFile(temporary, file.contents);
    await fs.rename(temporary, file.path);
  }
  // Dynamic imports are entry points of their own in the metafile: keep only the requested ones.
  const requested = Object.values(entries).map((entry) => path.resolve(root, entry));
  return Object.entries(result.metafile!.outputs)
    .filter(([, o]) => o.entryPoint && requested.includes(path.resolve(o.entryPoint)))
    .map(([file]) => path.resolve(file));
}

/**
 * A bench's child server bundled into dist/bench/ as `<name>.js`: the benches run their server
 * children from it with plain node, as the services run (bench/ingest/server.ts says why).
 */
export async function bundleScript(file: string, name = path.basename(file, '.ts')): Promise<string> {
  const [bundle] = await buildBundles({ [name]: file }, path.join(root, 'dist', 'bench'));
  return bundle;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  const unknown = names.filter((n) => !(n in SERVICE_ENTRIES));
  if (unknown.length > 0) {
    console.error(`unknown entry ${unknown.join(', ')} (${Object.keys(SERVICE_ENTRIES).join(', ')})`);
    process.exit(2);
  }
  const wanted = names.length > 0 ? names : Object.keys(SERVICE_ENTRIES);
  await buildBundles(Object.fromEntries(wanted.map((n) => [n, SERVICE_ENTRIES[n]])));
}
