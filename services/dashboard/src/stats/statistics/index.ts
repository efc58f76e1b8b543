import { cart } from './cart.js';
import { conversationInsights } from './conversation-insights.js';
import { engagement } from './engagement.js';
import { eventKinds } from './event-kinds.js';
import { lift } from './lift.js';
import { liveEvents } from './live-events.js';
import { overview } from './overview.js';
import { popupMetrics } from './popup-metrics.js';
import { purchases } from './purchases.js';
import { reconciliation } from './reconciliation.js';
import { setAsidePurchases } from './set-aside-purchases.js';
import { sources } from './sources.js';
import { timeseries } from './timeseries.js';
import { topics } from './topics.js';

/** Every statistic of the API, in the order the routes are registered (so the OpenAPI document lists them). */
export const STATISTICS = [
  overview, engagement, popupMetrics, purchases, timeseries, sources, cart, topics, setAsidePurchases, reconciliation, liveEvents, conversationInsights, eventKinds, lift,
] as const;

export { cart, conversationInsights, engagement, eventKinds, lift, liveEvents, overview, popupMetrics, purchases, reconciliation, setAsidePurchases, sources, timeseries, topics };
