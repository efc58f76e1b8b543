import type { FastifyBaseLogger } from 'fastify';
import type { Postgres } from '@chatlytics/postgres';
import { every } from '../jobs/every.js';
import type { AlertFiguresReader } from './figures.js';
import { decide } from './rules.js';
import type { AlertRepository, EvaluatedAlert } from './repository.js';

/** The advisory lock of the evaluator: one run at a time across every dashboard on the database (like the sealer's). */
export const ALERT_EVALUATOR_LOCK_KEY = 4_242_017_044;

export interface AlertEvaluatorOptions {
  alerts: AlertRepository;
  figures: AlertFiguresReader;
  postgres: Pick<Postgres, 'exclusive'>;
  log: FastifyBaseLogger;
  /** "Now" of every window; tests pin it. */
  clock: () => Date;
  /** "Now" of the notification queues: real time, since their workers' timers are real. */
  queueClock?: () => Date;
  appUrl: string;
  /** Between the starts of two runs (ALERT_EVALUATE_SECONDS); 0: never runs by itself. */
  intervalMs: number;
}

export interface EvaluationRun { evaluated: number; transitions: number; failed: number }

/**
 * Evaluates every alert: a run right after start-up, then one every `intervalMs`. One evaluator
 * runs at a time across dashboard processes (the advisory lock); and should two ever decide the
 * same change, the compare-and-set in AlertRepository.transition records and notifies it once.
 * An alert whose figures cannot be read keeps its state and is tried again at the next run.
 */
export function createAlertEvaluator(opts: AlertEvaluatorOptions) {
  const queueClock = opts.queueClock ?? (() => new Date());

  async function evaluateOne(a: EvaluatedAlert, run: EvaluationRun) {
    const now = opts.clock();
    const decision = decide(a, await opts.figures(a, now));
    if (decision.state === a.state) {
      await opts.alerts.recordEvaluation(a.id, decision.value, now);
      return;
    }
    const transition = await opts.alerts.transition(a, decision.state, decision.value, now, { queueNow: queueClock(), appUrl: opts.appUrl });
    if (transition) {
      run.transitions++;
      opts.log.info({ alertId: a.id, chatbotId: a.chatbotId, kind: a.kind, state: transition.state, value: decision.value }, 'alert state changed');
    }
  }

  /** One pass over every alert; undefined when another evaluator holds the lock. */
  async function runOnce(): Promise<EvaluationRun | undefined> {
    return opts.postgres.exclusive(ALERT_EVALUATOR_LOCK_KEY, async () => {
      const run: EvaluationRun = { evaluated: 0, transitions: 0, failed: 0 };
      for (const a of await opts.alerts.listForEvaluation()) {
        if (loop.stopped) break;
        try {
          await evaluateOne(a, run);
          run.evaluated++;
        } catch (err) {
          run.failed++;
          opts.log.warn({ err, alertId: a.id }, 'alert evaluation failed; its state is kept until the next run');
        }
      }
      return run;
    });
  }

  // At a fixed rate: each alert is evaluated at least once per interval, not per interval + run.
  const loop = every({
    intervalMs: opts.intervalMs, firstMs: 0, from: 'start', run: runOnce,
    onError: (err) => opts.log.warn({ err }, 'alert evaluation run failed; trying again'),
  });

  return { runOnce, start: loop.start, stop: loop.stop };
}
export type AlertEvaluator = ReturnType<typeof createAlertEvaluator>;
