import { engineStyleError } from '../errors.js';

/**
 * At most `max` queries at once. A query that finds every slot taken waits up to `waitMs`
 * for one, then fails with ClickHouse's 202 TOO_MANY_SIMULTANEOUS_QUERIES; the plugin answers
 * that with 429 and Retry-After. Waiters are served first come, first served.
 */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly max: number, private readonly waitMs: number) {}

  async acquire(): Promise<() => void> {
    if (this.running < this.max) {
      this.running++;
      return this.releaser();
    }
    return new Promise((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        this.running++;
        resolve(this.releaser());
      };
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(wake);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(tooManyQueries(this.max));
      }, this.waitMs);
      this.waiters.push(wake);
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.running--;
      this.waiters.shift()?.();
    };
  }
}

export const tooManyQueries = (max: number) =>
  Object.assign(engineStyleError(202, 'TOO_MANY_SIMULTANEOUS_QUERIES', `Too many simultaneous queries. Maximum: ${max}`), { retryAfterSeconds: 1 });
