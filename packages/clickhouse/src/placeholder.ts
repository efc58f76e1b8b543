/** A `{name:Type}` query parameter placeholder: an identifier, a colon, a type (never holding braces). */
export const PLACEHOLDER_PATTERN = String.raw`\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^{}]+?)\s*\}`;
