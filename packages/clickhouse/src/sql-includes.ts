import { sqlFileError } from './errors.js';

/**
 * Composition of query files. A query names a shared fragment with
 *   {{> shared/name}}   or   {{> shared/name key=(...) other=(...)}}
 * and the placeholder is replaced by that fragment's text, each `{{key}}` in the fragment
 * standing for the parenthesised value given (parentheses kept, nested two levels at most). Fragments may include
 * fragments. The replacement is plain text, done before the query reaches the engine, so
 * bound `{name:Type}` parameters inside a fragment stay bound parameters of the query.
 *
 * Layout: the fragment's lines after its first are indented like the placeholder's line,
 * text after the placeholder (a comma, say) follows its last line, and its leading comment
 * lines document the fragment and are not inserted.
 *
 * Every mistake fails loudly: an unknown fragment, a `{{key}}` left without a value, a value
 * the fragment never uses, and a fragment that includes itself, directly or not.
 */
// A value is parenthesised text, with parentheses nested at most two levels inside (a value
// passed on to a nested include inside another value).
const VALUE = String.raw`\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)`;
const INCLUDE = new RegExp(String.raw`\{\{>\s*([a-z0-9_-]+(?:/[a-z0-9_-]+)*)((?:\s+[a-z_][a-z0-9_]*=${VALUE})*)\s*\}\}`, 'gi');
const ARG = new RegExp(String.raw`([a-z_][a-z0-9_]*)=(${VALUE})`, 'gi');
const SLOT = /\{\{([a-z_][a-z0-9_]*)\}\}/gi;
const MAX_DEPTH = 16;

/**
 * `text` with every include replaced. `load(name)` returns a fragment's raw text or throws;
 * `self` names the file `text` came from, so that including it back is seen as a loop.
 */
export function expandIncludes(text: string, load: (name: string) => string, self?: string): string {
  const out = expand(text, load, self === undefined ? [] : [self]);
  const stray = /\{\{[^}]*\}\}/.exec(out);
  if (stray) throw sqlFileError(`Malformed SQL include placeholder ${stray[0]}`);
  return out;
}

function expand(text: string, load: (name: string) => string, chain: readonly string[]): string {
  if (chain.length > MAX_DEPTH) throw sqlFileError(`SQL includes nested deeper than ${MAX_DEPTH}: ${chain.join(' > ')}`);
  return text.replace(INCLUDE, (_match, name: string, argText: string, offset: number) => {
    if (chain.includes(name)) throw sqlFileError(`SQL include loop: ${[...chain, name].join(' > ')}`);
    const args = new Map<string, string>();
    for (const [, key, value] of argText.matchAll(ARG)) args.set(key, value);
    const fragment = fill(body(load(name)), args, name);
    const expanded = expand(fragment, load, [...chain, name]);
    return expanded.split('\n').join(`\n${indentAt(text, offset)}`);
  });
}

/** A fragment's text without its leading comment lines and surrounding blank lines. */
function body(raw: string): string {
  const lines = raw.replace(/\r\n/g, '\n').split('\n');
  let first = 0;
  while (first < lines.length && /^\s*(--.*)?$/.test(lines[first]!)) first++;
  return lines.slice(first).join('\n').trimEnd();
}

function fill(fragment: string, args: Map<string, string>, name: string): string {
  const used = new Set<string>();
  const filled = fragment.replace(SLOT, (_m, key: string) => {
    const value = args.get(key);
    if (value === undefined) throw sqlFileError(`SQL include ${name} needs a value for {{${key}}}`);
    used.add(key);
    return value;
  });
  for (const key of args.keys()) {
    if (!used.has(key)) throw sqlFileError(`SQL include ${name} has no {{${key}}} to fill`);
  }
  return filled;
}

/** The leading whitespace of the line that holds `offset`. */
function indentAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}
