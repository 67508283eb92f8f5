import { expect } from 'chai';
import pg from 'pg';
import { parseTimestamptz } from '../../adapters/postgres/timestamp-parser.js';
import { openTestDatabase, type OpenTestDatabase } from '../support/database.js';

/** pg's own timestamptz parser (postgres-date): what every value must still parse to. */
const library = pg.types.getTypeParser(1184, 'text') as (text: string) => unknown;

/** A Date by its time (NaN included), anything else as it is. */
const comparable = (value: unknown) => (value instanceof Date ? { date: value.getTime() } : { other: value });

function expectSameAsLibrary(text: string): void {
  const ours = parseTimestamptz(text);
  expect(ours instanceof Date, `${text}: a Date exactly when pg's parser gives one`).to.equal(library(text) instanceof Date);
  expect(comparable(ours), text).to.deep.equal(comparable(library(text)));
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

describe('timestamptz parsed by position (adapters/postgres/timestamp-parser.ts)', () => {
  it('gives what pg\'s parser gives for every fraction length and the zones PostgreSQL writes', () => {
    const fractions = ['', '.1', '.12', '.123', '.1234', '.12345', '.123456', '.000001', '.999999', '.0005', '.5'];
    const zones = ['+00', '-00', '+01', '-05', '+05:30', '-03:30', '+05:45', '+14', '-12', '+00:19:32', '-00:17:30'];
    for (const fraction of fractions) for (const zone of zones) expectSameAsLibrary(`2026-11-26 13:04:59${fraction}${zone}`);
  });

  it('gives what pg\'s parser gives at the edges: early and late years, BC, infinity, malformed text', () => {
    const texts = [
      '0001-01-01 00:00:00+00',
      '0099-12-31 23:59:59.999+00',
      '0100-01-01 00:00:00+00',
      '1969-12-31 23:59:59.9995+00',
      '1970-01-01 00:00:00+00',
      '2038-01-19 03:14:08+00',
      '9999-12-31 23:59:59.999999+00',
      '10000-01-01 00:00:00+00',
      '0044-03-15 12:00:00+00 BC',
      '2000-02-29 12:00:00+00 BC',
      'infinity',
      '-infinity',
      '2026-11-26',
      '2026-11-26 13:04:59',
      '2026-11-26 13:04:59Z',
      '2026-11-26T13:04:59+00',
      '2026-11-26 13:04:59.+00',
      '2026-11-26 13:04:59+0',
      '2026-11-26 13:04:59+00:3',
      '2026-1x-26 13:04:59+00',
      '',
      'not a time',
    ];
    for (const text of texts) expectSameAsLibrary(text);
  });

  it('gives what pg\'s parser gives for two thousand random timestamps', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      const zoneMinutes = [0, 30, 45][random(3)]!;
      const zone = `${random(2) ? '+' : '-'}${pad(random(15))}${zoneMinutes ? `:${pad(zoneMinutes)}` : ''}`;
      const fraction = random(3) ? `.${String(random(1_000_000)).padStart(6, '0').slice(0, 1 + random(6))}` : '';
      const text = `${pad(100 + random(9900), 4)}-${pad(1 + random(12))}-${pad(1 + random(28))} ${pad(random(24))}:${pad(random(60))}:${pad(random(60))}${fraction}${zone}`;
      expectSameAsLibrary(text);
    }
  });

  describe('on PostgreSQL, through the store\'s pool', () => {
    let db: OpenTestDatabase;
    before(async () => {
      db = await openTestDatabase({ migrate: false });
    });
    after(async () => {
      await db?.close();
    });

    for (const zone of ['UTC', 'America/St_Johns', 'Asia/Kathmandu', 'Europe/Amsterdam']) {
      it(`reads timestamps as the instants they are, in session time zone ${zone}`, async () => {
        const runner = db.dataSource.createQueryRunner();
        try {
          await runner.query(`SET TIME ZONE '${zone}'`);
          const rows: Array<{ at: unknown; text: string; ms: number }> = await runner.query(
            `SELECT at, at::text AS text, floor(extract(epoch FROM at) * 1000)::float8 AS ms
             FROM unnest(ARRAY['2026-11-26 13:04:59.123456+00', '2026-06-30 23:59:59.9999+00', '1900-01-01 00:00:00+00',
                               '1969-12-31 23:59:59.5+00', '2000-02-29 12:00:00+05:45', now()::text]::timestamptz[]) AS at`,
          );
          for (const row of rows) {
            expect(row.at, row.text).to.be.instanceOf(Date);
            expect((row.at as Date).getTime(), row.text).to.equal(row.ms);
            expect(comparable(row.at), row.text).to.deep.equal(comparable(library(row.text)));
          }
        } finally {
          await runner.release();
        }
      });
    }
  });
});
