import t from 'tap';
import { inlineParams, quote } from '../src/inline-params.js';

t.test('each placeholder becomes the cast of its text, as ClickHouse substitutes it', async (t) => {
  t.equal(inlineParams("SELECT {a:String}, {t:DateTime64(3, 'UTC')}", { a: "it's \\ x", t: '2026-01-02 03:04:05.678' }),
    "SELECT _CAST('it\\'s \\\\ x', 'String'), _CAST('2026-01-02 03:04:05.678', 'DateTime64(3, \\'UTC\\')')");
  t.equal(inlineParams('SELECT { n : UInt64 }', { n: 7 }), "SELECT _CAST('7', 'UInt64')", 'spaces inside the braces');
  t.equal(inlineParams('SELECT {ids:Array(UUID)}', { ids: ['a', "b'"] }), "SELECT _CAST('[\\'a\\',\\'b\\\\\\'\\']', 'Array(UUID)')");
  t.equal(inlineParams('SELECT {v:Nullable(String)}, {w:Array(Nullable(String))}', { v: null, w: [null] }),
    "SELECT _CAST(NULL, 'Nullable(String)'), _CAST('[NULL]', 'Array(Nullable(String))')");
  t.equal(inlineParams('SELECT {b:Bool}, {x:Int128}', { b: false, x: 2n ** 100n }), `SELECT _CAST('false', 'Bool'), _CAST('${2n ** 100n}', 'Int128')`);
  t.equal(inlineParams('SELECT count() FROM {t:Identifier}', { t: 'db.events' }), 'SELECT count() FROM `db`.`events`');
});

t.test('placeholders in literals, quoted names and comments stay text', async (t) => {
  const sql = "SELECT '{a:String}', 'it''s {a:String}', 'x\\' {a:String}', \"{a:String}\", `{a:String}` -- {a:String}\n# {a:String}\n/* {a:String} */ {a:String}";
  t.equal(inlineParams(sql, { a: 'v' }), sql.replace(/ \{a:String\}$/, " _CAST('v', 'String')"));
});

t.test('what the text cannot say is left to binding (undefined)', async (t) => {
  t.equal(inlineParams('SELECT {a:String}', {}), undefined, 'a missing parameter: the engine names it');
  t.equal(inlineParams('SELECT {a:String}', { a: { k: 1 } }), undefined, 'an object');
  t.equal(inlineParams('SELECT {a:Float64}', { a: Number.NaN }), undefined, 'NaN');
  t.equal(inlineParams('SELECT {a:UInt64}', { a: 2 ** 60 }), undefined, 'an integer past 2^53 already lost digits');
  t.equal(inlineParams('SELECT {t:Identifier}', { t: 'x; DROP TABLE y' }), undefined, 'not a name');
  t.equal(inlineParams('SELECT {a:Array(String)}', { a: ['x'.repeat(300_000)] }), undefined, 'past the size limit');
  t.equal(inlineParams('SELECT {a:String}', { a: 'é'.repeat(60) }, 100), undefined, 'the limit counts bytes');
});

t.test('a plain query passes through unchanged', async (t) => {
  t.equal(inlineParams('SELECT {} , map(1, 2)', { a: 1 }), 'SELECT {} , map(1, 2)');
  t.equal(quote('a\nb\0'), "'a\\nb\\0'");
});
