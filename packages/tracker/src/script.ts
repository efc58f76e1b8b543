/**
 * The entry of /tracker.js: configured by the attributes of its own script tag, it replaces
 * the inline stub `window.chatlytics` and replays the calls the stub queued.
 */
import { startTracker } from './browser.js';
import type { Chatlytics, ConsentState } from './types.js';

type Queued = unknown[];
const w = globalThis as unknown as {
  document: { currentScript: { src: string; dataset: Record<string, string | undefined> } | null };
  chatlytics?: { q?: Queued[] } | Chatlytics;
};
const script = w.document.currentScript;
const attr = script?.dataset ?? {};
const stub = (w.chatlytics as { q?: Queued[] } | undefined)?.q ?? [];
const api: Chatlytics = startTracker({
  endpoint: attr.endpoint || new URL(script?.src ?? '/', location.href).origin,
  chatbotId: attr.chatbotId,
  abTest: attr.abTest === 'true',
  consent: attr.consent as ConsentState | undefined,
  honorPrivacySignals: attr.privacySignals !== 'ignore',
});
w.chatlytics = api;
// Two stub shapes: q.push(['track', arguments]) (documented) and q.push(arguments) (track only).
for (const call of stub) {
  const [method, args] = call as [string, ArrayLike<unknown>];
  if (method === 'track' || method === 'consent') (api[method] as (...a: unknown[]) => void)(...Array.from(args));
  else (api.track as (...a: unknown[]) => void)(...Array.from(call as ArrayLike<unknown>));
}

declare const location: { href: string };
