import { execFileSync } from 'node:child_process';

/**
 * How fast this machine's CPU is right now: the milliseconds `node -e` takes for a fixed loop of
 * 3·10⁸ additions at the top level of a script (variables there are not optimised into registers,
 * so the loop is slow enough to time). The benches print it so that runs taken on different days
 * can be compared: on this project's shared 2-core VM it has read 1.3 s on a fast day and
 * 2.6–4.2 s on slower ones, and the statistics' latencies moved with it (×2–2.6 between those
 * days). Lower is faster. Like the benches, read it on an idle machine.
 */
export function machineSpeedMs(): number {
  const started = performance.now();
  execFileSync(process.execPath, ['-e', 'let s = 0; for (let i = 0; i < 3e8; i++) s += i; if (s < 0) process.exit(1);']);
  return performance.now() - started;
}

/** One line for a bench's output: the loop's time, best of `runs` (the least disturbed). */
export function machineSpeedLine(runs = 2): string {
  const best = Math.min(...Array.from({ length: runs }, machineSpeedMs));
  return `machine speed: \`node -e\` loop of 3e8 additions ${(best / 1000).toFixed(2)} s (best of ${runs}; lower is faster; 1.3 s on this VM's fast days)`;
}
