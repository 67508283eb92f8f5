import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import { LibpgQueryValidator, MAX_SQL_CHARS } from '../../adapters/sql/libpg-query-validator.js';

const validator = new LibpgQueryValidator();

const refusalOf = (sql: unknown) => refusal(validator.validate(sql as string));
const message = async (sql: unknown) => (await refusalOf(sql)).message;
const statement = async (sql: string) => (await validator.validate(sql)).statement;

describe('adapters: libpg-query SQL validator', () => {
  describe('accepts one read-only query', () => {
    const accepted: Array<[string, string]> = [
      ['SELECT 1', 'SELECT 1'],
      ['select * from orders where total > 10 order by id limit 5', 'select * from orders where total > 10 order by id limit 5'],
      ['WITH t AS (SELECT 1 AS n) SELECT n FROM t', 'WITH t AS (SELECT 1 AS n) SELECT n FROM t'],
      ['WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r', 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r'],
      ['SELECT 1 UNION SELECT 2 EXCEPT SELECT 3', 'SELECT 1 UNION SELECT 2 EXCEPT SELECT 3'],
      ['(SELECT 1) ORDER BY 1', '(SELECT 1) ORDER BY 1'],
      ['VALUES (1, 2), (3, 4)', 'VALUES (1, 2), (3, 4)'],
      ['TABLE orders', 'TABLE orders'],
      ['SELECT 1;', 'SELECT 1'],
      ['  SELECT 1 ;  ;\n', 'SELECT 1'],
      ["SELECT date_trunc('day', created_at)::date AS day, count(*) FROM events GROUP BY 1", "SELECT date_trunc('day', created_at)::date AS day, count(*) FROM events GROUP BY 1"],
    ];
    for (const [sql, expected] of accepted) {
      it(JSON.stringify(sql), async () => {
        expect(await statement(sql)).to.equal(expected);
      });
    }

    it('drops comments and trailing semicolons, shrinking gaps to one space', async () => {
      expect(await statement('-- lead\n/* block */ SELECT /* mid */ a,\n\n  b -- tail\n FROM t; -- after')).to.equal('SELECT a, b FROM t');
      // A trailing line comment would otherwise swallow whatever a caller wraps around the statement.
      expect(await statement('SELECT 1 -- note')).to.equal('SELECT 1');
      expect(await statement('SELECT/**/1')).to.equal('SELECT 1');
    });

    it('keeps literals and quoted names byte for byte, including comment-like text inside them', async () => {
      expect(await statement("SELECT '-- not a comment', 'a;  b', $q$ /* x */ $q$, E'\\n', \"Weird  Name\" FROM \"t;1\"")).to.equal(
        "SELECT '-- not a comment', 'a;  b', $q$ /* x */ $q$, E'\\n', \"Weird  Name\" FROM \"t;1\"",
      );
      expect(await statement("SELECT 'é€😀' AS \"naïve\" -- ü\n")).to.equal("SELECT 'é€😀' AS \"naïve\"");
    });
  });

  describe('refuses', () => {
    const refused: Array<[string, string]> = [
      ['SELECT 1; DROP TABLE x', 'sql must be exactly one statement (got 2)'],
      ['SELECT 1; SELECT 2; SELECT 3', 'sql must be exactly one statement (got 3)'],
      ["SELECT 1;\nDELETE FROM t -- ;'", 'sql must be exactly one statement (got 2)'],
      ['DROP TABLE x', 'sql must be a read-only SELECT or WITH ... SELECT (got DROP)'],
      ['INSERT INTO t VALUES (1)', 'sql must be a read-only SELECT or WITH ... SELECT (got INSERT)'],
      ['UPDATE t SET a = 1', 'sql must be a read-only SELECT or WITH ... SELECT (got UPDATE)'],
      ['DELETE FROM t', 'sql must be a read-only SELECT or WITH ... SELECT (got DELETE)'],
      ['MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE', 'sql must be a read-only SELECT or WITH ... SELECT (got MERGE)'],
      ['WITH d AS (SELECT 1) INSERT INTO t SELECT * FROM d', 'sql must be a read-only SELECT or WITH ... SELECT (got INSERT)'],
      ['CREATE TABLE t (a int)', 'sql must be a read-only SELECT or WITH ... SELECT (got CREATE)'],
      ['CREATE TABLE t2 AS SELECT * FROM t', 'sql must be a read-only SELECT or WITH ... SELECT (got CREATE TABLE AS)'],
      ['ALTER TABLE t ADD COLUMN b int', 'sql must be a read-only SELECT or WITH ... SELECT (got ALTER)'],
      ['TRUNCATE t', 'sql must be a read-only SELECT or WITH ... SELECT (got TRUNCATE)'],
      ['GRANT SELECT ON t TO public', 'sql must be a read-only SELECT or WITH ... SELECT (got GRANT)'],
      ['COPY t TO STDOUT', 'sql must be a read-only SELECT or WITH ... SELECT (got COPY)'],
      ["COPY (SELECT 1) TO PROGRAM 'id'", 'sql must be a read-only SELECT or WITH ... SELECT (got COPY)'],
      ['SET statement_timeout = 0', 'sql must be a read-only SELECT or WITH ... SELECT (got SET)'],
      ['SET ROLE postgres', 'sql must be a read-only SELECT or WITH ... SELECT (got SET)'],
      ['RESET ALL', 'sql must be a read-only SELECT or WITH ... SELECT (got RESET)'],
      ['SHOW search_path', 'sql must be a read-only SELECT or WITH ... SELECT (got SHOW)'],
      ['CALL do_things()', 'sql must be a read-only SELECT or WITH ... SELECT (got CALL)'],
      ['DO $$ BEGIN DELETE FROM t; END $$', 'sql must be a read-only SELECT or WITH ... SELECT (got DO)'],
      ['EXPLAIN ANALYZE DELETE FROM t', 'sql must be a read-only SELECT or WITH ... SELECT (got EXPLAIN)'],
      ['EXPLAIN SELECT 1', 'sql must be a read-only SELECT or WITH ... SELECT (got EXPLAIN)'],
      ['BEGIN', 'sql must be a read-only SELECT or WITH ... SELECT (got BEGIN)'],
      ['start transaction read write', 'sql must be a read-only SELECT or WITH ... SELECT (got START)'],
      ['WITH x AS (SELECT 1) UPDATE t SET a = 1', 'sql must be a read-only SELECT or WITH ... SELECT (got UPDATE)'],
      ['CREATE VIEW v AS SELECT 1', 'sql must be a read-only SELECT or WITH ... SELECT (got CREATE)'],
      ['commit', 'sql must be a read-only SELECT or WITH ... SELECT (got COMMIT)'],
      ['LOCK TABLE t', 'sql must be a read-only SELECT or WITH ... SELECT (got LOCK)'],
      ['VACUUM t', 'sql must be a read-only SELECT or WITH ... SELECT (got VACUUM)'],
      ["PREPARE p AS SELECT 1", 'sql must be a read-only SELECT or WITH ... SELECT (got PREPARE)'],
      ['EXECUTE p', 'sql must be a read-only SELECT or WITH ... SELECT (got EXECUTE)'],
      ["NOTIFY ch, 'x'", 'sql must be a read-only SELECT or WITH ... SELECT (got NOTIFY)'],
      ['REFRESH MATERIALIZED VIEW v', 'sql must be a read-only SELECT or WITH ... SELECT (got REFRESH)'],
      ['/* hi */ drop table x', 'sql must be a read-only SELECT or WITH ... SELECT (got DROP)'],
      ['WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', 'sql must be read-only (got DELETE in a WITH clause)'],
      ['WITH u AS (UPDATE t SET a = 1 RETURNING a) SELECT * FROM u', 'sql must be read-only (got UPDATE in a WITH clause)'],
      ['WITH i AS (INSERT INTO t VALUES (1) RETURNING *) SELECT 1', 'sql must be read-only (got INSERT in a WITH clause)'],
      ['WITH a AS (SELECT 1), b AS (WITH c AS (DELETE FROM t RETURNING *) SELECT * FROM c) SELECT * FROM b', 'sql must be read-only (got DELETE in a WITH clause)'],
      ['SELECT * FROM (WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d) s', 'sql must be read-only (got DELETE in a WITH clause)'],
      ['SELECT * INTO t2 FROM t', 'sql must not use SELECT ... INTO, which creates a table; select the rows instead'],
      ['SELECT * INTO TEMP t2 FROM t', 'sql must not use SELECT ... INTO, which creates a table; select the rows instead'],
      ['SELECT * FROM t FOR UPDATE', 'sql must not lock rows (got FOR UPDATE)'],
      ['SELECT * FROM t FOR NO KEY UPDATE NOWAIT', 'sql must not lock rows (got FOR NO KEY UPDATE)'],
      ['SELECT * FROM t FOR SHARE SKIP LOCKED', 'sql must not lock rows (got FOR SHARE)'],
      ['SELECT * FROM t FOR KEY SHARE', 'sql must not lock rows (got FOR KEY SHARE)'],
      ['SELECT 1 UNION SELECT 2 FOR SHARE', 'sql must not lock rows (got FOR SHARE)'],
      ['SELECT * FROM (SELECT * FROM t FOR UPDATE) s', 'sql must not lock rows (got FOR UPDATE)'],
      ['WITH l AS (SELECT * FROM t FOR UPDATE) SELECT * FROM l', 'sql must not lock rows (got FOR UPDATE)'],
      ['SELECT (SELECT a FROM t FOR UPDATE LIMIT 1)', 'sql must not lock rows (got FOR UPDATE)'],
      ['', 'sql must not be empty'],
      ['   \n\t ', 'sql must not be empty'],
      ['-- just a comment', 'sql must contain a SELECT statement (got only comments)'],
      ['/* a */ ; ; -- b', 'sql must contain a SELECT statement (got only comments)'],
      ['SELECT 1\0; DROP TABLE x', 'sql must not contain NUL characters'],
    ];
    for (const [sql, expected] of refused) {
      it(JSON.stringify(sql), async () => {
        const err = await refusalOf(sql);
        expect(err.code).to.equal('invalid_argument');
        expect(err.message).to.equal(expected);
      });
    }

    it('a value that is not a string, and an oversized one', async () => {
      expect(await message(42)).to.equal('sql must be a string (got number)');
      expect(await message(null)).to.equal('sql must be a string (got null)');
      expect(await message(`SELECT ${'1+'.repeat(MAX_SQL_CHARS / 2)}1`)).to.equal(
        `sql is ${MAX_SQL_CHARS + 8} characters, over the ${MAX_SQL_CHARS}-character limit`,
      );
    });
  });

  describe('reports syntax errors with their 1-based character position', () => {
    const errors: Array<[string, string]> = [
      ['SELECT * FROM FROM t', 'syntax error at or near "FROM" (position 15)'],
      ['SELEC 1', 'syntax error at or near "SELEC" (position 1)'],
      ['SELECT * FROM', 'syntax error at end of input (position 14)'],
      ["SELECT 'abc", 'unterminated quoted string at or near "\'abc" (position 8)'],
      ["SELECT 'é' FROM WHERE", 'syntax error at or near "WHERE" (position 17)'],
      ['SELECT 1; SELEC 2', 'syntax error at or near "SELEC" (position 11)'],
      ['SELECT (1', 'syntax error at end of input (position 10)'],
    ];
    for (const [sql, expected] of errors) {
      it(JSON.stringify(sql), async () => {
        const err = await refusalOf(sql);
        expect(err.code).to.equal('invalid_argument');
        expect(err.message).to.equal(expected);
      });
    }
  });

  it('walks deeply nested trees without overflowing the stack', async () => {
    const chain = 'SELECT 1' + ' UNION SELECT 1'.repeat(6000);
    expect(await statement(chain)).to.equal(chain);
    const hidden = 'SELECT 1' + ' UNION SELECT 1'.repeat(3000) + ' UNION (SELECT a FROM t FOR UPDATE)';
    expect(await message(hidden)).to.equal('sql must not lock rows (got FOR UPDATE)');
    const nested = 'SELECT ' + '('.repeat(2000) + '1' + ')'.repeat(2000);
    expect(await statement(nested)).to.equal(nested);
  });

  it('handles concurrent first calls (one module load)', async () => {
    const fresh = new LibpgQueryValidator();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => fresh.validate(`SELECT ${i}`)));
    expect(results.map((r) => r.statement)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `SELECT ${i}`));
  });
});
