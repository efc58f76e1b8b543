import { stateBadge } from '../html/components.js';
import type { FieldErrors } from '../http/errors.js';
import { html, raw, type RawHtml } from '../html/html.js';
import type { presentChild, presentChunk, presentDataSourceDetail, presentDataSourceListItem } from './presenter.js';
import type { ChatbotChoice } from '../html/layout.js';
import { fmtInt } from '../html/format.js';

type ListItem = ReturnType<typeof presentDataSourceListItem>;
type Detail = ReturnType<typeof presentDataSourceDetail>;
type Chunk = ReturnType<typeof presentChunk>;
type Child = ReturnType<typeof presentChild>;

/** A number that may be missing: a dash rather than a 0 the data never said. */
const count = (v: number | null) => (v === null ? '–' : fmtInt(v));
const selected = (on: boolean) => (on ? raw(' selected') : '');

export interface ListFilter { chatbotId: string; tag: string }
export interface ListPage { rows: ListItem[]; total: number; page: number; pages: number; first: number }

/** The filter form: chatbot and tag; the tag list is the chosen chatbot's values (all chatbots' without one). */
function filterForm(chatbots: ChatbotChoice[], tags: string[], filter: ListFilter): RawHtml {
  return html`<form class="filters" method="get" action="/app/data-sources" aria-label="Filter data sources">
<div class="pair"><label for="f-chatbot">Chatbot</label>
<select id="f-chatbot" name="chatbot_id"><option value="">All chatbots</option>
${chatbots.map((c) => html`<option value="${c.id}"${selected(c.id === filter.chatbotId)}>${c.name}</option>`)}</select></div>
<div class="pair"><label for="f-tag">Tag</label>
<select id="f-tag" name="tag"><option value="">All tags</option>
${tags.map((v) => html`<option value="${v}"${selected(v === filter.tag)}>${v}</option>`)}</select></div>
<button type="submit">Filter</button>
</form>`;
}

/** The link to another page of the same filtered list. */
function pageLink(filter: ListFilter, page: number): string {
  const q = new URLSearchParams();
  if (filter.chatbotId) q.set('chatbot_id', filter.chatbotId);
  if (filter.tag) q.set('tag', filter.tag);
  if (page > 1) q.set('page', String(page));
  const s = q.toString();
  return `/app/data-sources${s ? `?${s}` : ''}`;
}

export function dataSourceListBody(chatbots: ChatbotChoice[], tags: string[], filter: ListFilter, list: ListPage): RawHtml {
  const filtered = filter.chatbotId !== '' || filter.tag !== '';
  const last = list.first + list.rows.length - 1;
  return html`<h1>Data sources</h1>
<p><a class="add" href="/app/data-sources/search${filter.chatbotId ? html`?chatbot_id=${filter.chatbotId}` : ''}">Search test</a>: try a question against a chatbot's knowledge base.</p>
${filterForm(chatbots, tags, filter)}
<p class="window" id="ds-count" data-stat="data-sources.total" data-value="${list.total}">${fmtInt(list.total)} data source${list.total === 1 ? '' : 's'}${filtered ? ' match the filter' : ''}${list.rows.length ? `, showing ${fmtInt(list.first)}–${fmtInt(last)}` : ''}.</p>
${list.rows.length === 0 ? html`<p>${filtered ? 'No data source matches the filter.' : 'This account has no data source yet.'}</p>`
  : html`<div class="scroll" tabindex="0" role="region" aria-label="Data sources (table, scrolls sideways)"><table class="data-sources"><thead><tr><th scope="col">Name</th><th scope="col">Chatbot</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Documents</th><th scope="col">Children</th><th scope="col">Created (UTC)</th><th scope="col">Updated</th></tr></thead>
<tbody>${list.rows.map((r) => html`<tr data-source-id="${r.id}">
<th scope="row" class="wrap"><a href="/app/data-sources/${r.id}">${r.name}</a></th>
<td data-label="Chatbot" class="wrap">${r.chatbotName}</td>
<td data-label="Type">${r.type}${r.subtype ? html` / ${r.subtype}` : ''}</td>
<td data-label="Status">${stateBadge(r.status)}</td>
<td data-label="Documents">${count(r.documentCount)}</td>
<td data-label="Children">${fmtInt(r.childrenCount)}</td>
<td data-label="Created (UTC)">${r.createdAt}</td>
<td data-label="Updated">${r.updatedAt}</td>
</tr>`)}</tbody></table></div>`}
${list.pages > 1 ? html`<nav class="pager" aria-label="Pages">
${list.page > 1 ? html`<a href="${pageLink(filter, list.page - 1)}" rel="prev">Previous</a>` : ''}
<span>Page ${list.page} of ${list.pages}</span>
${list.page < list.pages ? html`<a href="${pageLink(filter, list.page + 1)}" rel="next">Next</a>` : ''}</nav>` : ''}`;
}

function facts(ds: Detail): RawHtml {
  const row = (label: string, value: unknown) => html`<dt>${label}</dt><dd>${value}</dd>`;
  const yesNo = (v: boolean | null) => (v === null ? '–' : v ? 'yes' : 'no');
  return html`<dl class="facts two">
${row('Chatbot', ds.chatbotName)}${row('Type', ds.subtype ? `${ds.type} / ${ds.subtype}` : ds.type)}
${row('Status', ds.status)}${row('Source', ds.source ?? '–')}
${row('Documents', count(ds.documentCount))}${row('Products', count(ds.productCount))}
${row('Auto update', yesNo(ds.autoUpdate))}${row('Simple fetch', yesNo(ds.simpleFetch))}
${row('Tags', ds.extraTags?.length ? html`<ul class="tags">${ds.extraTags.map((t) => html`<li><span class="tag-name">${t.name}:</span> ${t.value}</li>`)}</ul>` : '–')}
${row('Raw file', ds.rawPath ?? '–')}
${row('Created', `${ds.createdAt} UTC`)}${row('Updated', `${ds.updatedAt} UTC`)}
</dl>`;
}

/** One data source: its facts, its chunks in order, its raw content (as text, never as markup) and its children. */
export function dataSourceDetailBody(d: { ds: Detail; parentId: string | null; chunks: Chunk[]; rawContent: string | null; children: Child[] }): RawHtml {
  const { ds } = d;
  return html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/app/data-sources">Data sources</a>${d.parentId ? html` · <a href="/app/data-sources/${d.parentId}">Parent data source</a>` : ''}</nav>
<h1>${ds.name}</h1>
<p><a href="/app/data-sources/search?chatbot_id=${ds.chatbotId}">Search test for ${ds.chatbotName}</a></p>
<section aria-labelledby="h-facts"><h2 id="h-facts">Details</h2>${facts(ds)}</section>
<section aria-labelledby="h-chunks"><h2 id="h-chunks">Chunks (${fmtInt(d.chunks.length)})</h2>
${d.chunks.length === 0 ? html`<p>No chunks.</p>` : html`<ol class="chunks">${d.chunks.map((c) => html`<li data-chunk-id="${c.id}"><p class="meta">#${c.index} · ${c.tokenCount === null ? 'tokens unknown' : `${fmtInt(c.tokenCount)} tokens`} · ${c.hasEmbedding ? 'embedded' : 'no embedding'}</p>
<p class="text">${c.content}</p></li>`)}</ol>`}</section>
<section aria-labelledby="h-raw"><h2 id="h-raw">Raw content</h2>
${d.rawContent === null ? html`<p>No raw content is stored for this data source.</p>`
  : html`<p class="hint">The stored file as text, cut at 51,200 characters.</p><pre class="raw" id="raw-content" tabindex="0" aria-labelledby="h-raw">${d.rawContent}</pre>`}</section>
<section aria-labelledby="h-children"><h2 id="h-children">Children (${fmtInt(d.children.length)})</h2>
${d.children.length === 0 ? html`<p>No children.</p>` : html`<div class="scroll" tabindex="0" role="region" aria-label="Children (table, scrolls sideways)"><table class="data-sources children"><thead><tr><th scope="col">Name</th><th scope="col">Source</th><th scope="col">Status</th><th scope="col">Documents</th><th scope="col">Created (UTC)</th></tr></thead>
<tbody>${d.children.map((c) => html`<tr data-source-id="${c.id}"><th scope="row" class="wrap"><a href="/app/data-sources/${c.id}">${c.name}</a></th>
<td data-label="Source" class="wrap">${c.source ?? '–'}</td><td data-label="Status">${c.status}</td><td data-label="Documents">${count(c.documentCount)}</td><td data-label="Created (UTC)">${c.createdAt}</td></tr>`)}</tbody></table></div>`}</section>`;
}

export interface SearchForm { chatbotId: string; query: string; documentCount: string; errors: FieldErrors | null }
export interface SearchDoc { content: string; name: string; score: number; search_position: number }

/** The search test's form; a field's first message is shown next to it and tied to it for screen readers. */
function searchForm(chatbots: ChatbotChoice[], form: SearchForm): RawHtml {
  const err = (name: string) => form.errors?.[name]?.[0];
  const invalid = (name: string) => (err(name) ? html` aria-invalid="true" aria-describedby="${name}-error"` : '');
  const message = (name: string) => (err(name) ? html`<p class="field-error" id="${name}-error" role="alert">${err(name)}</p>` : '');
  return html`<form class="stacked" method="post" action="/app/data-sources/search" novalidate>
<div class="field"><label for="chatbot_id">Chatbot</label>
<select id="chatbot_id" name="chatbot_id"${invalid('chatbot_id')}>${chatbots.map((c) => html`<option value="${c.id}"${selected(c.id === form.chatbotId)}>${c.name}</option>`)}</select>
${message('chatbot_id')}</div>
<div class="field"><label for="query">Question</label>
<textarea id="query" name="query" rows="3" maxlength="5000"${invalid('query')}>${form.query}</textarea>
${message('query')}</div>
<div class="field"><label for="document_count">Results (1–50)</label>
<input id="document_count" name="document_count" type="number" min="1" max="50" value="${form.documentCount}"${invalid('document_count')}>
${message('document_count')}</div>
<button type="submit">Search</button>
</form>`;
}

export function searchBody(chatbots: ChatbotChoice[], form: SearchForm, docs: SearchDoc[] | null): RawHtml {
  return html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/app/data-sources">Data sources</a></nav>
<h1>Search test</h1>
<section aria-labelledby="h-search"><h2 id="h-search">Ask the knowledge base</h2>
<p class="hint">Full-text search over the chatbot's chunks, best match first: what the chatbot can find for this question.</p>
${chatbots.length === 0 ? html`<p>This account has no chatbot yet.</p>` : searchForm(chatbots, form)}</section>
${docs === null ? '' : html`<section aria-labelledby="h-results"><h2 id="h-results">Results (${docs.length})</h2>
${docs.length === 0 ? html`<p>No chunk matches this question.</p>` : html`<ol class="results">${docs.map((d) => html`<li data-position="${d.search_position}">
<p class="meta"><span class="name">${d.name}</span> · score <span data-score="${d.score}">${d.score.toPrecision(3)}</span></p>
<p class="text">${d.content}</p></li>`)}</ol>`}</section>`}`;
}
