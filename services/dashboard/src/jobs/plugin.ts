import fp from 'fastify-plugin';
import { createJobWorker, type JobWorkerOptions } from './worker.js';

/** The job worker as part of the dashboard app: started when the server is ready, stopped (after the job in hand) on close. */
export const jobWorkerPlugin = fp<JobWorkerOptions>(async (app, opts) => {
  const worker = createJobWorker(opts);
  app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', async () => worker.stop());
});
