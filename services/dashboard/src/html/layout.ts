import type { FastifyReply } from 'fastify';
import { html, raw, type RawHtml } from './html.js';
import { assetUrl as asset } from './assets.js';
import { viewQuery } from './window-link.js';

/**
 * No scripts at all, inline styles only (the pages ship no external assets), forms may only post
 * to this origin, and no framing (clickjacking of the reset form).
 */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const STYLE = `
body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1f2933;line-height:1.5}
h1{font-size:1.5rem}label{display:block;margin-top:1rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.5rem;margin-top:.25rem;font-size:1rem}
button{margin-top:1.25rem;padding:.6rem 1rem;font-size:1rem;cursor:pointer}
.status{background:#e6f6ec;border:1px solid #2f855a;padding:.75rem}
.errors{background:#fdecea;border:1px solid #c53030;padding:.75rem}
.field-error{color:#c53030;margin:.25rem 0 0}
nav{margin-top:1.5rem}`;

export interface PageOptions {
  title: string;
  body: RawHtml;
  /** The reset page: its URL carries a live token, which must not travel in a Referer. */
  noReferrer?: boolean;
}

/**
 * The headers of every HTML page: personal (flash messages, e-mail, numbers), so never cached;
 * `csp` names what the page may load.
 */
export function pageHeaders(reply: FastifyReply, statusCode: number, csp: string, referrerPolicy = 'same-origin'): FastifyReply {
  return reply.code(statusCode)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', csp)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', referrerPolicy);
}

/** The document's opening through its title. */
export const documentStart = (title: string) => html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Chatlytics</title>`;

/** Send a complete page. */
export function sendPage(reply: FastifyReply, page: PageOptions, statusCode = 200) {
  pageHeaders(reply, statusCode, CSP, page.noReferrer ? 'no-referrer' : 'same-origin');
  return reply.send(html`${documentStart(page.title)}
<style>${raw(STYLE)}</style>
</head>
<body>
<main>
${page.body}
</main>
</body>
</html>
`.html);
}

/**
 * The app pages' policy: scripts and styles only as files of this origin (no inline script or
 * style: an injected one does not run), data fetched only from here, forms post only here, no
 * framing. Chart data travels in `<script type="application/json">` blocks, which never execute.
 */
export const APP_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
  + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";


export interface ChatbotChoice {
  id: string;
  name: string;
  /** Its status is `paused`: each of its pages says so. */
  paused?: boolean;
}

/** A chatbot row as the page frame knows it: the switcher's entry, and whether its pages say it is paused. */
export const chatbotChoice = (c: { id: string; name: string; status?: string }): ChatbotChoice =>
  ({ id: c.id, name: c.name, ...(c.status === 'paused' ? { paused: true } : {}) });

export interface AppPageOptions {
  title: string;
  body: RawHtml;
  /** The chatbot switcher's list and current choice (omit on pages about no chatbot). */
  chatbots?: ChatbotChoice[];
  /** `keep`: the window and filter (the analytics page's query pairs) the tabs and the switcher carry along (analytics/window-link.ts). */
  current?: { chatbotId: string; view: AppView; keep?: [string, string][] };
  /** The switcher's choice on a page about one chatbot's thing but none of its views (a data source). */
  selectedChatbot?: string;
  /** Extra script files (besides app.js), e.g. the chart library. */
  scripts?: string[];
  styles?: string[];
  /**
   * An error page (404, 403, …), possibly for a guest: the header keeps only the way back to the
   * dashboard, no switcher, no account links.
   */
  minimal?: boolean;
}

/** A chatbot's views, one tab each; `setup` holds the tag and the tracking settings. */
export const APP_VIEWS = ['analytics', 'insights', 'live', 'alerts', 'setup'] as const;
export type AppView = typeof APP_VIEWS[number];
const VIEWS: [AppView, string][] = [['analytics', 'Analytics'], ['insights', 'Insights'], ['live', 'Live'], ['alerts', 'Alerts'], ['setup', 'Setup']];

/** JSON for a `<script type="application/json">` block: `<` escaped so no text can close the element. */
export function jsonBlock(id: string, value: unknown): RawHtml {
  const text = JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
  return html`<script type="application/json" id="${id}">${raw(text)}</script>`;
}

function switcher(chatbots: ChatbotChoice[], current?: AppPageOptions['current'], selected = current?.chatbotId): RawHtml {
  if (chatbots.length === 0) return html``;
  return html`<form class="switcher" method="get" action="/app/go">
<label for="switch-chatbot">Chatbot</label>
<select id="switch-chatbot" name="chatbot_id" data-autosubmit required>
${selected && chatbots.some((c) => c.id === selected) ? '' : html`<option value="" selected disabled>Choose a chatbot</option>`}
${chatbots.map((c) => html`<option value="${c.id}"${c.id === selected ? raw(' selected') : ''}>${c.name}</option>`)}
</select>
<input type="hidden" name="view" value="${current?.view ?? 'analytics'}">
${(current?.keep ?? []).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
<button type="submit" class="secondary">Open</button>
</form>`;
}

function viewTabs(current: AppPageOptions['current']): RawHtml {
  if (!current) return html``;
  const keep = current.keep ?? [];
  return html`<nav class="tabs" aria-label="Views">${VIEWS.map(([view, label]) => html`<a href="/app/${current.chatbotId}/${view}${viewQuery(view, keep)}"${view === current.view ? raw(' aria-current="page"') : ''}>${label}</a>`)}</nav>`;
}

/**
 * On every page of a paused chatbot. The status is only shown: nothing in Chatlytics acts on it
 * (the tracking endpoint does not look at it), so the notice says events still count.
 */
function pausedNotice(page: AppPageOptions): RawHtml {
  const chatbot = page.current && page.chatbots?.find((c) => c.id === page.current!.chatbotId);
  if (!chatbot?.paused) return html``;
  return html`<div class="banner paused" role="status" data-paused><strong>This chatbot is paused.</strong>
Its status in <a href="/app">your chatbots</a> is “paused”; events that still arrive for it are tracked and counted here as usual.</div>`;
}

/** A complete app page: header with the chatbot switcher and the views, then the body. */
export function sendAppPage(reply: FastifyReply, page: AppPageOptions, statusCode = 200) {
  pageHeaders(reply, statusCode, APP_CSP);
  const styles = ['app.css', ...(page.styles ?? [])];
  const scripts = [...(page.scripts ?? []), 'app.js'];
  return reply.send(html`${documentStart(page.title)}
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
${styles.map((s) => html`<link rel="stylesheet" href="${asset(s)}">`)}
${scripts.map((s) => html`<script src="${asset(s)}" defer></script>`)}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/app">Chatlytics</a>
${page.minimal ? html`<nav class="account" aria-label="Account"><a href="/app">Your chatbots</a></nav>` : html`${switcher(page.chatbots ?? [], page.current, page.current?.chatbotId ?? page.selectedChatbot)}
<nav class="account" aria-label="Account"><a href="/app/chatbots/new">Add a chatbot</a> <a href="/app/data-sources">Data sources</a> <a href="/app/settings">Settings</a> <a href="/settings/profile">Profile</a>
<form method="post" action="/logout"><button type="submit" class="link">Log out</button></form></nav>`}
</header>
${viewTabs(page.current)}
<main id="main">
${pausedNotice(page)}${page.body}
</main>
</body>
</html>
`.html);
}
