import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The repository's dependency rule, checked over every import of the source files (src/ of each
 * package and service, scripts/, bench/, the clickhouse/ module):
 * - a relative import stays inside its own package (scripts/ and bench/, the tools, may use each
 *   other's files);
 * - another package is reached only through an entry its package.json "exports" names (no "./*");
 * - packages never depend on services; a service depends on another service only when it is
 *   the all-in-one application (services/standalone); the tools may use any public entry;
 * - inside a package, no two folders of src/ import each other, directly or in a ring (files
 *   directly in src/ compose the folders and are left out of that check; a folder nested in
 *   one of them, such as stats/statistics/, is part of it);
 * - no two files import each other, directly or in a ring, wherever they are: in one folder,
 *   across folders, or through a file directly in src/.
 */

export type UnitKind = 'package' | 'service' | 'application' | 'scripts';

export interface Unit {
  /** Folder relative to the repository root, e.g. 'packages/core'. */
  dir: string;
  /** npm name ('@chatlytics/core'); the tools (scripts/, bench/) have none. */
  name?: string;
  kind: UnitKind;
  /** Keys of package.json "exports", e.g. ['.', './testing']. */
  exports: string[];
}

export interface SourceFile {
  /** Path relative to the repository root, '/'-separated. */
  file: string;
  imports: string[];
}

export const APPLICATIONS = new Set(['services/standalone']);

function unitOf(units: Unit[], file: string): Unit | undefined {
  return units.find((u) => file === u.dir || file.startsWith(`${u.dir}/`));
}

/** Every way the given files break the rule, as readable lines (empty: the rule holds). */
export function checkDependencies(units: Unit[], files: SourceFile[]): string[] {
  const problems: string[] = [];
  const byName = new Map(units.filter((u) => u.name).map((u) => [u.name!, u]));
  const folderEdges = new Map<string, Map<string, Set<string>>>();
  const fileEdges = new Map<string, Map<string, Set<string>>>();
  for (const unit of units) {
    for (const key of unit.exports.filter((k) => k.includes('*'))) problems.push(`${unit.dir}/package.json: exports ${key} opens every file; name each public entry`);
  }

  for (const { file, imports } of files) {
    const from = unitOf(units, file);
    if (!from) continue;
    for (const spec of imports) {
      if (spec.startsWith('.')) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
        const to = unitOf(units, target);
        if (to !== from && !(from.kind === 'scripts' && to?.kind === 'scripts')) {
          problems.push(`${file}: relative import ${spec} leaves ${from.dir}`);
          continue;
        }
        addFolderEdge(folderEdges, from, file, target);
        addEdge(fileEdges, from.dir, path.posix.relative(from.dir, file), path.posix.relative(from.dir, target.replace(/\.js$/, '.ts')));
        continue;
      }
      const match = /^(@chatlytics\/[^/]+)(\/.*)?$/.exec(spec);
      if (!match) continue;
      const to = byName.get(match[1]);
      if (!to) {
        problems.push(`${file}: imports unknown package ${match[1]}`);
        continue;
      }
      const subpath = match[2] ? `.${match[2]}` : '.';
      if (!to.exports.includes(subpath)) {
        problems.push(`${file}: imports ${spec}, which ${to.name} does not export (exports: ${to.exports.join(', ')})`);
      }
      if (to === from) continue;
      if (from.kind === 'package' && to.kind !== 'package') {
        problems.push(`${file}: package ${from.name} depends on service ${to.name}`);
      } else if (from.kind === 'service' && to.kind !== 'package') {
        problems.push(`${file}: service ${from.name} depends on service ${to.name} (only an application composes services)`);
      }
    }
  }
  for (const [dir, edges] of folderEdges) {
    for (const ring of folderCycles(edges)) problems.push(`${dir}: folders import each other: ${ring.join(' → ')}`);
  }
  for (const [dir, edges] of fileEdges) {
    for (const ring of folderCycles(edges)) problems.push(`${dir}: files import each other: ${ring.join(' → ')}`);
  }
  return problems;
}

/** The folder of src/ a file is in, or null for files directly in src/ (and outside src/). */
function folderOf(unit: Unit, file: string): string | null {
  const rel = path.posix.relative(`${unit.dir}/src`, file);
  if (rel.startsWith('..')) return null;
  const [top, ...rest] = rel.split('/');
  return rest.length === 0 ? null : top;
}

function addFolderEdge(all: Map<string, Map<string, Set<string>>>, unit: Unit, file: string, target: string) {
  const a = folderOf(unit, file);
  const b = folderOf(unit, target);
  if (a === null || b === null || a === b) return;
  addEdge(all, unit.dir, a, b);
}

function addEdge(all: Map<string, Map<string, Set<string>>>, dir: string, a: string, b: string) {
  if (a === b) return;
  let edges = all.get(dir);
  if (!edges) all.set(dir, (edges = new Map()));
  if (!edges.has(a)) edges.set(a, new Set());
  edges.get(a)!.add(b);
}

/** Strongly connected groups of more than one folder or file (Tarjan), each as a ring of names. */
export function folderCycles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const rings: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) rings.push(group.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return rings;
}

function listTs(dir: string, root: string): string[] {
  const abs = path.join(root, dir);
  let names: string[];
  try {
    names = readdirSync(abs);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (name === 'node_modules') return [];
    if (statSync(path.join(root, rel)).isDirectory()) return listTs(rel, root);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** The units and the source files of the repository at `root`, imports read by TypeScript. */
export function readRepository(root: string): { units: Unit[]; files: SourceFile[] } {
  const units: Unit[] = [];
  for (const group of ['packages', 'services']) {
    for (const name of readdirSync(path.join(root, group)).sort()) {
      const dir = `${group}/${name}`;
      const pkg = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
      const kind: UnitKind = group === 'packages' ? 'package' : APPLICATIONS.has(dir) ? 'application' : 'service';
      units.push({ dir, name: pkg.name, kind, exports: Object.keys(pkg.exports ?? {}) });
    }
  }
  const sql = JSON.parse(readFileSync(path.join(root, 'clickhouse/package.json'), 'utf8'));
  units.push({ dir: 'clickhouse', name: sql.name, kind: 'package', exports: Object.keys(sql.exports ?? {}) });
  units.push({ dir: 'scripts', kind: 'scripts', exports: [] }, { dir: 'bench', kind: 'scripts', exports: [] });

  const sources = [
    ...units.filter((u) => u.dir.includes('/')).flatMap((u) => listTs(`${u.dir}/src`, root)),
    ...listTs('scripts', root),
    ...listTs('bench', root),
    ...readdirSync(path.join(root, 'clickhouse')).filter((n) => n.endsWith('.ts')).map((n) => `clickhouse/${n}`),
  ];
  const files = sources.map((file) => {
    const info = ts.preProcessFile(readFileSync(path.join(root, file), 'utf8'), true, true);
    return { file, imports: info.importedFiles.map((f) => f.fileName) };
  });
  return { units, files };
}
