/**
 * Where a `.cpuprofile` (node --cpu-prof) spent its time: self time by function and by
 * package or directory, and inclusive time by function, top N each
 * (`npx tsx scripts/cpuprofile-top.ts <file> [--top 30] [--match REGEX] [--from US --to US]`).
 *
 * Why a script and not DevTools: comparing the tracking route with the bare route, or one
 * commit with the next, needs the same table twice, as text. --from / --to keep only samples
 * inside a window of the profile's clock (microseconds, the same clock as
 * process.hrtime.bigint() / 1000n), so start-up and warm-up can be left out. --match filters the
 * inclusive table (e.g. 'packages/|services/'). Divide by the requests served in the window for
 * a per-request figure; (idle) is time the thread waited, and native frames may hold time the
 * thread was descheduled on a loaded machine (the profiler samples wall-clock time).
 *
 * To profile the ingest service: `node --cpu-prof --import=tsx bench/ingest/server.ts embedded`
 * (prints its port; SIGINT writes the profile), load it with autocannon, then run this; the
 * dashboard bench's server writes one with `npm run bench:dashboard -- --cpu-prof-dir <dir>`
 * (bench/README.md, "Profiles").
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] }

const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' }, match: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } },
});
if (positionals.length !== 1) throw new Error('usage: cpuprofile-top.ts <file.cpuprofile> [--top N] [--match REGEX] [--from US --to US]');
const profile = JSON.parse(fs.readFileSync(positionals[0], 'utf8')) as Profile;
const top = Number(opt.top);
const from = opt.from === undefined ? -Infinity : Number(opt.from);
const to = opt.to === undefined ? Infinity : Number(opt.to);

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** Self time per node id, inside the window. */
const self = new Map<number, number>();
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i] ?? 0;
  if (at < from || at > to) continue;
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
}

const shortUrl = (url: string) => url.replace(/^file:\/\//, '').replace(/.*node_modules\//, 'nm/').replace(`${process.cwd()}/`, '');
const fnKey = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
function packageOf(n: ProfileNode): string {
  const url = shortUrl(n.callFrame.url);
  if (!url) return n.callFrame.functionName.startsWith('(') ? n.callFrame.functionName : '(native)';
  if (url.startsWith('node:')) return url;
  const dep = /^nm\/((@[^/]+\/)?[^/]+)/.exec(url);
  return dep ? dep[1] : url.split('/').slice(0, 3).join('/');
}

const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
const selfByFn = new Map<string, number>();
const selfByPackage = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
for (const [id, us] of self) {
  const node = byId.get(id)!;
  total += us;
  add(selfByFn, fnKey(node), us);
  add(selfByPackage, packageOf(node), us);
  // A recursive function counts once per sample.
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const k = fnKey(byId.get(cur)!);
    if (!seen.has(k)) { seen.add(k); add(inclusive, k, us); }
  }
}

function show(title: string, m: Map<string, number>, filter?: RegExp): void {
  console.log(`\n== ${title} (window total ${(total / 1e3).toFixed(0)} ms)`);
  const rows = [...m].filter(([k]) => !filter || filter.test(k)).sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [k, us] of rows) console.log(`${(us / 1e3).toFixed(0).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
}
show('self time by function', selfByFn);
show('self time by package / directory', selfByPackage);
show('inclusive time by function', inclusive, opt.match ? new RegExp(opt.match) : undefined);
