import type { FastifyReply } from 'fastify';
import { documentStart, html, pageHeaders, raw, type RawHtml } from './html.js';
import { assetUrl as asset } from './assets.js';

/**
 * The app pages' policy: scripts and styles only as files of this origin (no inline script or
 * style: an injected one does not run), data fetched only from here, forms post only here, no
 * framing. Chart data travels in `<script type="application/json">` blocks, which never execute.
 */
export const APP_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
  + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";


export interface ChatbotChoice { id: string; name: string }

export interface AppPageOptions {
  title: string;
  body: RawHtml;
  /** The chatbot switcher's list and current choice (omit on pages about no chatbot). */
  chatbots?: ChatbotChoice[];
  current?: { chatbotId: string; view: AppView };
  /** The switcher's choice on a page about one chatbot's thing but none of its views (a data source). */
  selectedChatbot?: string;
  /** Extra script files (besides app.js), e.g. the chart library. */
  scripts?: string[];
  styles?: string[];
}

export type AppView = 'analytics' | 'insights' | 'live' | 'alerts';
const VIEWS: [AppView, string][] = [['analytics', 'Analytics'], ['insights', 'Insights'], ['live', 'Live'], ['alerts', 'Alerts']];

/** JSON for a `<script type="application/json">` block: `<` escaped so no text can close the element. */
export function jsonBlock(id: string, value: unknown): RawHtml {
  const text = JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
  return html`<script type="application/json" id="${id}">${raw(text)}</script>`;
}

function switcher(chatbots: ChatbotChoice[], current?: AppPageOptions['current'], selected = current?.chatbotId): RawHtml {
  if (chatbots.length === 0) return html``;
  return html`<form class="switcher" method="get" action="/app/go">
<label for="switch-chatbot">Chatbot</label>
<select id="switch-chatbot" name="chatbot_id" data-autosubmit>
${chatbots.map((c) => html`<option value="${c.id}"${c.id === selected ? raw(' selected') : ''}>${c.name}</option>`)}
</select>
<input type="hidden" name="view" value="${current?.view ?? 'analytics'}">
<button type="submit" class="secondary">Open</button>
</form>`;
}

function viewTabs(current: AppPageOptions['current']): RawHtml {
  if (!current) return html``;
  return html`<nav class="tabs" aria-label="Views">${VIEWS.map(([view, label]) => html`<a href="/app/${current.chatbotId}/${view}"${view === current.view ? raw(' aria-current="page"') : ''}>${label}</a>`)}</nav>`;
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
${switcher(page.chatbots ?? [], page.current, page.current?.chatbotId ?? page.selectedChatbot)}
<nav class="account" aria-label="Account"><a href="/app/chatbots/new">Add a chatbot</a> <a href="/app/data-sources">Data sources</a> <a href="/app/settings">Settings</a> <a href="/settings/profile">Profile</a>
<form method="post" action="/logout"><button type="submit" class="link">Log out</button></form></nav>
</header>
${viewTabs(page.current)}
<main id="main">
${page.body}
</main>
</body>
</html>
`.html);
}
