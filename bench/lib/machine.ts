import { execFileSync } from 'node:child_process';
import os from 'node:os';
import type { Report } from './report.js';

/**
 * How fast this machine's CPU is right now: the milliseconds `node -e` takes for a fixed loop of
 * 3·10⁸ additions at the top level of a script (variables there are not optimised into registers,
 * so the loop is slow enough to time). Every bench reports it first, so that runs taken on
 * different days can be compared: on a shared VM it moves by a factor of 2–3 from day to day, and
 * latencies move with it. Lower is faster. Like the benches, read it on an idle machine.
 */
export function machineSpeedMs(): number {
  const started = performance.now();
  execFileSync(process.execPath, ['-e', 'let s = 0; for (let i = 0; i < 3e8; i++) s += i; if (s < 0) process.exit(1);']);
  return performance.now() - started;
}

const loadAverage = () => os.loadavg().map((l) => Number(l.toFixed(1)));

/** The machine's speed (the loop's time, best of `runs`: the least disturbed), its cores and load, as the run's first figure. */
export function reportMachine(report: Report, runs = 2): void {
  const best = Math.min(...Array.from({ length: runs }, machineSpeedMs)) / 1000;
  const cpus = os.cpus().length;
  report.figure('machine speed', best, 's', { runs, cpus, loadAverage: loadAverage() });
  report.text(`machine speed: \`node -e\` loop of 3e8 additions ${best.toFixed(2)} s (best of ${runs}; lower is faster); `
    + `${cpus} CPUs, load average ${loadAverage().join(' ')}`);
}

/** The load average now, for a figure's context or a line: what else the machine was doing. */
export const machineLoad = (): { loadAverage: number[]; cpus: number } => ({ loadAverage: loadAverage(), cpus: os.cpus().length });
