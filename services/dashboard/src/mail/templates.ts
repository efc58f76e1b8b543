import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { escapeHtml } from '../html/html.js';

/** services/dashboard/templates: one `.mjml` (HTML part) and one `.txt` (plain part) per e-mail. */
export const TEMPLATES_DIR = fileURLToPath(new URL('../../templates', import.meta.url));

/** Every e-mail the dashboard sends, with its subject and the variables its templates use. */
export const MAIL_TEMPLATES = {
  'reset-password': { subject: 'Reset your Chatlytics password', variables: ['email', 'resetUrl', 'expireMinutes'] },
  'password-changed': { subject: 'Your Chatlytics password was changed', variables: ['email', 'changedAt', 'forgotPasswordUrl'] },
  'alert-firing': { subject: 'A Chatlytics alert is firing', variables: ['chatbotName', 'condition', 'value', 'at', 'alertsUrl'] },
  'alert-resolved': { subject: 'A Chatlytics alert is resolved', variables: ['chatbotName', 'condition', 'value', 'at', 'alertsUrl'] },
} as const;
export type MailTemplateName = keyof typeof MAIL_TEMPLATES;
export type MailVariables<N extends MailTemplateName> = Record<(typeof MAIL_TEMPLATES)[N]['variables'][number], string>;

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

export interface MailTemplates {
  render<N extends MailTemplateName>(name: N, vars: MailVariables<N>): RenderedMail;
}

const PLACEHOLDER = /\{\{(\w+)\}\}/g;

/** Line breaks and other control characters in a value could forge lines of the plain part. */
const plain = (value: string) => value.replace(/[\u0000-\u001f\u007f]/g, ' ');

function fill(template: string, vars: Record<string, string>, escape: (v: string) => string): string {
  return template.replace(PLACEHOLDER, (_m, name: string) => escape(vars[name]));
}

/** A template must use exactly its declared variables: a typo fails at start-up, not in an inbox. */
function checkPlaceholders(name: string, file: string, source: string, declared: readonly string[]) {
  const used = new Set([...source.matchAll(PLACEHOLDER)].map((m) => m[1]));
  const unknown = [...used].filter((v) => !declared.includes(v));
  const missing = declared.filter((v) => !used.has(v));
  if (unknown.length || missing.length) {
    throw new Error(`mail template ${name} (${file}): unknown placeholders [${unknown.join(', ')}], unused variables [${missing.join(', ')}]`);
  }
}

async function compile(dir: string): Promise<MailTemplates> {
  // Loaded lazily: mjml is a large module that only this start-up step needs.
  const { default: mjml2html } = await import('mjml');
  const compiled = new Map<string, { html: string; text: string }>();
  for (const [name, def] of Object.entries(MAIL_TEMPLATES)) {
    const mjmlFile = path.join(dir, `${name}.mjml`);
    const textFile = path.join(dir, `${name}.txt`);
    const [source, text] = await Promise.all([fs.readFile(mjmlFile, 'utf8'), fs.readFile(textFile, 'utf8')]);
    // MJML once per process; per e-mail only the placeholders are filled in the resulting HTML.
    const result = await mjml2html(source, { validationLevel: 'strict', filePath: mjmlFile });
    checkPlaceholders(name, mjmlFile, result.html, def.variables);
    checkPlaceholders(name, textFile, text, def.variables);
    compiled.set(name, { html: result.html, text });
  }
  return {
    render(name, vars) {
      const t = compiled.get(name)!;
      return {
        subject: MAIL_TEMPLATES[name].subject,
        html: fill(t.html, vars, escapeHtml),
        text: fill(t.text, vars, plain),
      };
    },
  };
}

const cache = new Map<string, Promise<MailTemplates>>();

/** Compile the templates of `dir` once per process (every app instance of a test run shares them). */
export function loadMailTemplates(dir = TEMPLATES_DIR): Promise<MailTemplates> {
  let loaded = cache.get(dir);
  if (!loaded) {
    loaded = compile(dir);
    cache.set(dir, loaded);
    loaded.catch(() => cache.delete(dir));
  }
  return loaded;
}
