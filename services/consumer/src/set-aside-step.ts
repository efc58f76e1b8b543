import { setAsideReasonOf } from '@chatlytics/events';
import { RejectReason } from './errors.js';
import { deadLetter, ok, type Step, type StepResult } from './step.js';
import type { Validated } from './validate-step.js';

export const SET_ASIDE_STEP = 'set-aside';

/**
 * A purchase the ingest set aside (implausible, or unverified for a chatbot that requires
 * signed purchases: @chatlytics/events set-aside.ts) carries `set_aside` and must never become
 * a row of `events`: every statistic, rollup and the order rule read that table. It is recorded
 * in `events_rejected` with the ingest's reason instead, and not dead-lettered: it is not
 * poison. Such messages never take the fast path, whose canonical form has no such key.
 */
export function createSetAsideStep(): Step<Validated, Validated> {
  return {
    name: SET_ASIDE_STEP,
    run(input): StepResult<Validated> {
      const reason = setAsideReasonOf(input.event);
      if (reason === undefined) return ok(input);
      if (reason === null) return deadLetter(RejectReason.SchemaInvalid, '/set_aside: not a known set-aside reason');
      return {
        kind: 'dead-letter', reason, error: `set aside by the ingest: ${reason}`,
        setAside: { chatbotId: input.event.chatbot_id, eventId: input.event.event_id },
      };
    },
  };
}
