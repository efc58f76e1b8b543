/**
 * `npm run bench:dashboard`: the dashboard's API routes against a bare baseline (api.ts), then
 * every app page (app-pages.ts).
 */
import { sequence } from '../lib/bench.js';
import api from './api.js';
import appPages from './app-pages.js';

export default sequence('The dashboard\'s API routes (50 chatbots, 2,000 data sources) against a bare route with the same bodies, on PGlite and a PostgreSQL server; then every app page.', api, appPages);
