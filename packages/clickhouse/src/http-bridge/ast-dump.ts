/**
 * The tree of ClickHouse's `EXPLAIN AST` text: one row per node, indented one space per
 * level, `Type [details] [(alias a)] [(children N)]`. Names are printed as written, so an
 * alias holding a line break adds rows of the caller's choosing; such rows can only add nodes,
 * never hide or re-parent a real one below the single root (see sandbox.ts), and rows that do
 * not even look like nodes make the whole dump unreadable, which the caller treats as unsafe.
 */
export interface AstNode {
  /** `Function`, `SelectWithUnionQuery`, `ColumnsReplaceTransformer::Replacement`, … */
  type: string;
  /** The rest of the row after the type, e.g. ` file (alias f) (children 1)`. */
  details: string;
  depth: number;
  /** The `(children N)` the row declares (0 without it). */
  declaredChildren: number;
  children: AstNode[];
  parent?: AstNode;
}

const ROW = /^( *)([A-Za-z][A-Za-z0-9_]*(?:::[A-Za-z][A-Za-z0-9_]*)*)(.*)$/;
const CHILDREN = / \(children (\d+)\)$/;

/** The root of the dump, or null when the text is not a tree with one root. */
export function parseAstDump(dump: string): AstNode | null {
  const rows = dump.split('\n').filter((r) => r !== '');
  if (rows.length === 0) return null;
  const stack: AstNode[] = [];
  let root: AstNode | null = null;
  for (const row of rows) {
    const m = ROW.exec(row);
    if (!m) return null;
    const depth = m[1].length;
    const declared = CHILDREN.exec(m[3]);
    const node: AstNode = { type: m[2], details: m[3], depth, declaredChildren: declared ? Number(declared[1]) : 0, children: [] };
    if (depth === 0) {
      if (root) return null;
      root = node;
    } else {
      // A row more than one level below the previous one has no parent.
      if (!root || depth > stack.length) return null;
      node.parent = stack[depth - 1];
      node.parent.children.push(node);
    }
    stack.length = depth;
    stack.push(node);
  }
  return root;
}

/** The name a `Function` row carries: the word after the type. */
export function functionName(node: AstNode): string {
  return /^ ([^ ]+)/.exec(node.details)?.[1] ?? '';
}

export function* walk(node: AstNode): Generator<AstNode> {
  yield node;
  for (const child of node.children) yield* walk(child);
}
