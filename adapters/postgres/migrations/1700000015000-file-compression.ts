import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * files.bytes compressed with LZ4 instead of PostgreSQL's default pglz where the server was built with
 * LZ4 (PostgreSQL 14+ `--with-lz4`, as Debian's and the official images are): storing a 5 MiB page took
 * about 110 ms with pglz and 30 ms with LZ4 on the benchmark machine, for about a quarter more disk on
 * HTML (docs/decisions/0042-lz4-file-compression.md). A server without LZ4, such as the embedded
 * PGlite, refuses the method with feature_not_supported (0A000), and one older than 14 has no per-column
 * compression at all; the block then leaves the column on pglz. Only new values are compressed with LZ4:
 * rows stored before keep their pglz compression.
 */
export class FileCompression1700000015000 implements MigrationInterface {
  name = 'FileCompression1700000015000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DO $$
      BEGIN
        IF current_setting('server_version_num')::integer >= 140000 THEN
          EXECUTE 'ALTER TABLE files ALTER COLUMN bytes SET COMPRESSION lz4';
        END IF;
      EXCEPTION WHEN feature_not_supported THEN
        -- Built without LZ4: the column stays on the default (pglz), which every server has.
        NULL;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DO $$
      BEGIN
        IF current_setting('server_version_num')::integer >= 140000 THEN
          EXECUTE 'ALTER TABLE files ALTER COLUMN bytes SET COMPRESSION default';
        END IF;
      END $$`);
  }
}
