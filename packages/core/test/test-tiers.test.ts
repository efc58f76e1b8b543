/**
 * The test tiers (test-tiers/*.yaml, the README's "Tests"): `npm test` runs every suite but the
 * e2e tier, `npm run test:e2e` the e2e tier, so no suite is left out of both and none is in
 * both. A suite is in the e2e tier by its name (*.e2e.test.ts) or by a list of files that
 * fast.yaml excludes and e2e.yaml includes: the two lists must be the same files, and each must
 * exist (a renamed suite would otherwise drop out of the fast tier and into neither).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import YAML from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const fast = YAML.parse(read('test-tiers/fast.yaml')) as { extends: string; exclude: string[] };
const e2e = YAML.parse(read('test-tiers/e2e.yaml')) as { extends: string; include: string[] };
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string>; tap: { include: string[] } };

/** Every *.test.ts of a package's or service's test folder, '/'-separated from the root. */
function testFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.test.ts')) out.push(rel);
    }
  };
  for (const group of ['packages', 'services']) {
    for (const unit of fs.readdirSync(path.join(root, group))) if (fs.existsSync(path.join(root, group, unit, 'test'))) walk(`${group}/${unit}/test`);
  }
  return out;
}

t.test('both tiers extend the one configuration, which includes every test folder', async (t) => {
  t.equal(fast.extends, '../package.json');
  t.equal(e2e.extends, '../package.json');
  t.same(pkg.tap.include, ['packages/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'bench/test/**/*.test.ts']);
  t.match(pkg.scripts.test, /TAP_RCFILE=test-tiers\/fast\.yaml tap/, 'npm test is the fast tier');
  t.match(pkg.scripts['test:e2e'], /TAP_RCFILE=test-tiers\/e2e\.yaml tap/, 'npm run test:e2e is the e2e tier');
});

t.test('the e2e tier is the e2e names and one list of files, which the fast tier leaves out', async (t) => {
  const [fastPattern, ...fastFiles] = fast.exclude;
  const [e2ePattern, ...e2eFiles] = e2e.include;
  t.equal(fastPattern, '**/*.e2e.test.ts');
  t.equal(e2ePattern, '{packages,services}/*/test/**/*.e2e.test.ts');
  t.same(fastFiles, e2eFiles, 'the same files, in the same order');
  const all = new Set(testFiles());
  for (const file of e2eFiles) {
    t.ok(all.has(file), `${file} is a suite`);
    t.notOk(file.endsWith('.e2e.test.ts'), `${file} is listed, not named`);
  }
  const e2eNamed = [...all].filter((f) => f.endsWith('.e2e.test.ts'));
  t.ok(e2eNamed.length > 20, `${e2eNamed.length} suites named *.e2e.test.ts`);
  t.ok(all.size - e2eNamed.length - e2eFiles.length > 80, 'the fast tier keeps the rest');
});
