/**
 * CPU time from Linux's per-process and per-thread accounting (/proc/<pid>/stat,
 * /proc/<pid>/task/<tid>/stat): what a process that is not this one used (a server child, the
 * Kafka broker's JVM), and which thread of a process used it (JavaScript, V8's helpers, libuv,
 * chdb's pools). Elsewhere, or once the process or thread has ended, there is no answer.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: clock ticks per second of utime and stime (100 on Linux). */
const TICKS_PER_SECOND = 100;

export interface TaskCpu {
  /** The thread's name with trailing digits dropped, so that a pool's threads group together. */
  name: string;
  /** User + system CPU time, µs. */
  us: number;
}

/** A process's CPU (the whole process when `tid` is left out, else that thread of it); undefined when unreadable. */
export function taskCpu(pid: number | 'self', tid?: string): TaskCpu | undefined {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, '');
    // Fields 14 and 15 of stat(5) (utime, stime), counted after the ")" that ends the command name.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { name, us: ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

/** Every thread of a process with its CPU, by thread id (empty when unreadable). */
export function threadsCpu(pid: number | 'self'): Map<string, TaskCpu> {
  const out = new Map<string, TaskCpu>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    const t = taskCpu(pid, tid);
    if (t) out.set(tid, t);
  }
  return out;
}
