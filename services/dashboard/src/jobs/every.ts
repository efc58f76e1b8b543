/** A loop that runs a piece of work again and again until stopped. */
export interface Loop {
  /** Starts the loop (once; a second call does nothing). */
  start(): void;
  /** No run starts after this; resolves once the one under way (if any) has ended. */
  stop(): Promise<void>;
  /** Set by stop(): a run that does many things stops between them. */
  readonly stopped: boolean;
}

export interface EveryOptions {
  /** Between runs; 0 or less: the loop never runs by itself (tests call the work directly). */
  intervalMs: number;
  /** Before the first run; default intervalMs. */
  firstMs?: number;
  /**
   * `end` (default): the next run starts intervalMs after this one ended. `start`: intervalMs
   * after this one started (at once if it took longer), so the work is done at least once per
   * interval, not per interval plus run.
   */
  from?: 'start' | 'end';
  run: () => Promise<unknown>;
  /** A run that threw; the loop goes on. */
  onError: (err: unknown) => void;
}

/** The periodic loop of the dashboard's workers (the job worker, the digest scheduler, the alert evaluator). */
export function every(o: EveryOptions): Loop {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let started = false;
  let stopped = false;

  const schedule = (ms: number) => {
    timer = setTimeout(() => {
      const startedAt = Date.now();
      running = o.run()
        .catch(o.onError)
        .finally(() => {
          if (!stopped) schedule(o.from === 'start' ? Math.max(0, o.intervalMs - (Date.now() - startedAt)) : o.intervalMs);
        });
    }, ms);
    // A loop alone must not keep a process alive that is otherwise done.
    timer.unref();
  };

  return {
    start() {
      if (started || stopped || o.intervalMs <= 0) return;
      started = true;
      schedule(o.firstMs ?? o.intervalMs);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
    get stopped() {
      return stopped;
    },
  };
}
