/** The event names the tracking endpoint accepts (`tracktrans` is the legacy name of `purchase`). */
export type TrackerEvent = 'visitor' | 'popup_displayed' | 'popup_opened' | 'bot_open' | 'convo_started' | 'message_sent' | 'message_like' | 'message_dislike' | 'click_through' | 'added_to_cart' | 'go_to_cart' | 'purchase' | 'tracktrans' | 'error';

export type ConsentState = 'pending' | 'granted' | 'denied';
export type AbGroup = 'control' | 'test' | null;

/** The event payload: free-form, with the fields the statistics read typed. */
export interface TrackerData {
  chatbot_id?: string;
  items?: { item_id?: string; id?: string; value?: number | string; price?: number | string; quantity?: number; currency?: string }[];
  orderNum?: string;
  /** click_through: the product clicked in the chat, as the shop's orders name it. */
  item_id?: string | number;
  currency?: string;
  popup_version?: string;
  open_way?: 'popup' | 'chat_button';
  url?: string;
  /** document.referrer; with `url`, where the visit came from (sent with `visitor` by default). */
  referrer?: string;
  [field: string]: unknown;
}

/** `window.chatlytics` once the script has loaded. */
export interface Chatlytics {
  track(event: TrackerEvent, data?: TrackerData): void;
  /**
   * Sends what this tab may send now (its events and closed tabs'). Resolves when all of it is
   * delivered, or at the first failed attempt, or at once inside a retry wait or without
   * granted consent; retries go on in the background. Never rejects for a failed delivery.
   */
  flush(): Promise<void>;
  consent(granted: boolean): void;
  readonly token: string | null;
  readonly abGroup: AbGroup;
  /**
   * Whether this visitor is in the chatbot's holdout (the widget must stay hidden), as the
   * ingest last answered; null until an answer told it (or the chatbot runs no holdout).
   */
  inHoldout(): boolean | null;
}

export interface TrackerOptions {
  /** Origin (or base URL) of the ingest service; the batch route is appended. */
  endpoint: string;
  chatbotId?: string;
  abTest?: boolean;
  /** Initial consent (default granted). */
  consent?: ConsentState;
  /** Treat Global Privacy Control / Do Not Track as a denial (default true). */
  honorPrivacySignals?: boolean;
}

/** A key-value store with the semantics of localStorage (sync, string values). */
export interface KeyValueStore {
  getItem(key: string): string | null | undefined;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
  keys(): string[];
}

export interface HttpAnswer {
  status: number;
  retryAfter: string | null;
  json(): Promise<unknown>;
}

/** Everything the tracker needs from its host, injected so the logic runs in node with fakes. */
export interface TrackerEnv {
  /** The persistent store, or null when the browser refuses storage. */
  storage: KeyValueStore | null;
  post(url: string, body: string, keepalive: boolean): Promise<HttpAnswer>;
  /** Runs fn while holding a lock shared by every tab of the site (Web Locks); without one, runs it directly. */
  exclusive(fn: () => Promise<void>): Promise<void>;
  /** Marks this tab alive until the page goes away (a Web Lock held for the page's lifetime). */
  registerTab(id: string): void;
  /** Ids of the tabs alive now, or null when the browser cannot tell (then every event is anyone's). */
  liveTabs(): Promise<string[] | null>;
  now(): number;
  random(): number;
  randomBytes(n: number): Uint8Array;
  setTimer(fn: () => void, ms: number): unknown;
  /** True when the browser signals GPC or Do Not Track. */
  privacySignal: boolean;
  /** Announces the holdout arm the ingest answered (the `chatlytics:holdout` DOM event); absent outside a page. */
  holdout?(held: boolean): void;
  /** The page's address and document.referrer, sent with each `visitor` event (the traffic source); absent outside a page. */
  page?(): { url: string; referrer: string };
}
