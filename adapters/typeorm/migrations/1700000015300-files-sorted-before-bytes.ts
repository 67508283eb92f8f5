import type { MigrationInterface, QueryRunner } from 'typeorm';
import { publishFunction, SIGNATURE, storeFiles, VARIANTS } from './1700000015200-publish-writes.js';

/**
 * `dashpub_publish` (migration 1700000015200) sorts a publish's new files by hash before their bytes are
 * attached, not after. The sort keeps concurrent publishes of overlapping files taking their rows in one
 * order; as written before, each row it sorted carried the file's bytes, so a page over `work_mem` (4 MB
 * by default) was copied into the sort, written to a temporary file and read back before being stored:
 * about 10 of the database's 15–20 ms of CPU for a 5 MiB page on the benchmark machine
 * (docs/decisions/0036-publish-function.md). The rows come out of the sorted subquery in its order, as the hashes'
 * order is all the sort is for.
 */
export class FilesSortedBeforeBytes1700000015300 implements MigrationInterface {
  name = 'FilesSortedBeforeBytes1700000015300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION dashpub_publish${SIGNATURE}`);
    await queryRunner.query(publishFunction({ ...VARIANTS.after, fileStep: storeFiles(false) }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION dashpub_publish${SIGNATURE}`);
    await queryRunner.query(publishFunction('after'));
  }
}
