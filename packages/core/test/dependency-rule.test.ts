import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { checkDependencies, readRepository, type SourceFile, type Unit } from './dependency-rule.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

t.test('every import of the repository keeps the dependency rule', async (t) => {
  const { units, files } = readRepository(root);
  t.ok(files.length > 100, `read ${files.length} source files`);
  t.ok(files.some((f) => f.imports.includes('@chatlytics/core')), 'imports were parsed');
  t.same(checkDependencies(units, files), []);
});

t.test('the rule catches each kind of violation', async (t) => {
  const units: Unit[] = [
    { dir: 'packages/core', name: '@chatlytics/core', kind: 'package', exports: ['.', './testing'] },
    { dir: 'packages/db', name: '@chatlytics/db', kind: 'package', exports: ['.'] },
    { dir: 'services/api', name: '@chatlytics/api', kind: 'service', exports: ['.'] },
    { dir: 'services/web', name: '@chatlytics/web', kind: 'service', exports: ['.'] },
    { dir: 'services/standalone', name: '@chatlytics/standalone', kind: 'application', exports: ['.'] },
    { dir: 'scripts', kind: 'scripts', exports: [] },
    { dir: 'bench', kind: 'scripts', exports: [] },
  ];
  const check = (...files: SourceFile[]) => checkDependencies(units, files);

  t.same(check(
    { file: 'packages/db/src/index.ts', imports: ['@chatlytics/core', '@chatlytics/core/testing', './pool.js', 'node:fs'] },
    { file: 'services/api/src/app.ts', imports: ['@chatlytics/db', './routes/a.js', './stats/b.js'] },
    { file: 'services/api/src/routes/a.ts', imports: ['../stats/b.js', '../errors.js'] },
    { file: 'services/standalone/src/main.ts', imports: ['@chatlytics/api', '@chatlytics/web'] },
    { file: 'scripts/bench.ts', imports: ['@chatlytics/api', './helpers.js'] },
    { file: 'bench/ingest/load.ts', imports: ['@chatlytics/api', '../lib/child.js', '../../scripts/build.js'] },
  ), [], 'a clean tree passes');

  t.match(check({ file: 'packages/db/src/testing.ts', imports: ['../../core/src/testing.js'] }), [/relative import .* leaves packages\/db/]);
  t.match(check({ file: 'scripts/bench.ts', imports: ['../services/api/src/stats/b.js'] }), [/leaves scripts/]);
  t.match(check({ file: 'bench/run.ts', imports: ['../services/api/test/helper.js'] }), [/leaves bench/]);
  t.match(check({ file: 'services/standalone/src/cli.ts', imports: ['@chatlytics/api/auth/passwords'] }), [/does not export/]);
  t.match(check({ file: 'services/api/src/app.ts', imports: ['@chatlytics/core/src/config'] }), [/does not export/]);
  t.match(check({ file: 'packages/db/src/index.ts', imports: ['@chatlytics/api'] }), [/package @chatlytics\/db depends on service/]);
  t.match(check({ file: 'services/api/src/app.ts', imports: ['@chatlytics/web'] }), [/only an application composes services/]);
  t.match(check({ file: 'services/api/src/app.ts', imports: ['@chatlytics/nope'] }), [/unknown package/]);
  t.match(checkDependencies([...units, { dir: 'services/open', name: '@chatlytics/open', kind: 'service', exports: ['.', './*'] }], []), [/exports \.\/\* opens every file/]);
  t.match(check(
    { file: 'services/api/src/auth/plugin.ts', imports: ['../repositories/sessions.js'] },
    { file: 'services/api/src/repositories/sessions.ts', imports: ['../auth/credentials.js'] },
  ), [/services\/api: folders import each other: auth → repositories/]);
  t.match(check(
    { file: 'services/api/src/a/x.ts', imports: ['../b/y.js'] },
    { file: 'services/api/src/b/y.ts', imports: ['../c/z.js'] },
    { file: 'services/api/src/c/z.ts', imports: ['../a/x.js'] },
  ), [/folders import each other: a → b → c/], 'a ring of three folders');
  t.same(check(
    { file: 'services/api/src/stats/date-range.ts', imports: ['./timeframe.js'] },
    { file: 'services/api/src/stats/timeframe.ts', imports: ['./date-range.js'] },
  ), ['services/api: files import each other: src/stats/date-range.ts → src/stats/timeframe.ts'], 'two files of one folder');
  t.match(check(
    { file: 'services/api/src/deps.ts', imports: ['./digest/repository.js'] },
    { file: 'services/api/src/digest/repository.ts', imports: ['./routes.js'] },
    { file: 'services/api/src/digest/routes.ts', imports: ['../deps.js'] },
  ), [/files import each other: src\/deps\.ts → src\/digest\/repository\.ts → src\/digest\/routes\.ts/], 'a ring through a file directly in src/');
  t.same(check(
    { file: 'services/api/src/stats/run.ts', imports: ['./statistics/index.js'] },
    { file: 'services/api/src/stats/statistics/index.ts', imports: ['../window.js'] },
  ), [], 'a folder nested in another is part of it');
  t.same(check(
    { file: 'services/api/src/stats/a.ts', imports: ['./b.js', './c.js'] },
    { file: 'services/api/src/stats/b.ts', imports: ['./c.js'] },
  ), [], 'a file imported twice is no ring');
});
