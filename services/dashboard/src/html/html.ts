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
