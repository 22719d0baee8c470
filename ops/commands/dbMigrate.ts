import { migrate } from '../../projections/migrate.ts';
import { allMigrations } from '../database/allMigrations.ts';
import { openConfiguredDatabase } from '../database/openConfiguredDatabase.ts';
import type { CommandRun } from './command.ts';

/** `loupe db migrate`: applies pending migrations and lists them. */
export const run: CommandRun = async (config) => {
  const database = await openConfiguredDatabase(config);
  try {
    const applied = await migrate(database.pool, allMigrations());
    process.stdout.write(
      applied.length ? `applied ${applied.length} migration(s):\n${applied.map((id) => `  ${id}\n`).join('')}` : 'database is up to date\n',
    );
    return 0;
  } finally {
    await database.close();
  }
};
