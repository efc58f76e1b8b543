import type { FastifyReply } from 'fastify';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escape text for HTML element content and quoted attribute values alike. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** A tagged template whose interpolations are escaped unless wrapped in `raw()`. */
export class RawHtml {
  constructor(readonly html: string) {}
  toString() { return this.html; }
}
export const raw = (html: string) => new RawHtml(html);

export function html(strings: TemplateStringsArray, ...values: unknown[]): RawHtml {
  let out = strings[0];
  values.forEach((v, i) => {
    const part = Array.isArray(v) ? v.map((x) => (x instanceof RawHtml ? x.html : escapeHtml(x))).join('')
      : v instanceof RawHtml ? v.html
      : v === null || v === undefined || v === false ? '' : escapeHtml(v);
    out += part + strings[i + 1];
  });
  return new RawHtml(out);
}

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
