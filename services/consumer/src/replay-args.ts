import { badReplayArgs } from './errors.js';

/** Which stream a replay re-reads: the events topic, or the dead letters. */
export type ReplayStream = 'events' | 'dead-letter';

/**
 * The words after `replay` (`--from <ISO-8601> [--stream events|dead-letter]`). Kept apart from
 * replay.ts so the CLI can check them before it starts any engine.
 */
export function parseReplayArgs(args: readonly string[]): { from: Date; stream: ReplayStream } {
  let from: string | undefined;
  let stream: string = 'events';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = inline ?? args[++i];
    if (name === '--from') from = value;
    else if (name === '--stream') stream = value;
    else throw badReplayArgs(`replay: unknown argument ${JSON.stringify(arg)} (usage: replay --from <ISO-8601> [--stream events|dead-letter])`);
  }
  if (!from) throw badReplayArgs('replay: --from <ISO-8601> is required');
  // Date.parse alone accepts "5" or "March"; demand a date that starts like ISO-8601.
  const time = /^\d{4}-\d{2}-\d{2}/.test(from) ? new Date(from) : new Date(NaN);
  if (Number.isNaN(time.getTime())) throw badReplayArgs(`replay: --from must be an ISO-8601 date or time (got ${JSON.stringify(from)})`);
  if (stream !== 'events' && stream !== 'dead-letter') throw badReplayArgs(`replay: --stream must be events or dead-letter (got ${JSON.stringify(stream)})`);
  return { from: time, stream };
}
