/** The DataSource the TypeORM CLI uses (`npx typeorm -d dist/ormconfig.js migration:show`). */
import { createDataSource } from './adapters/postgres/data-source.js';

export default createDataSource(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
