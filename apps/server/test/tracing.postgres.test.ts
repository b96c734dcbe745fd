import { freshDatabase } from './support/database.ts';
import { describeTracedServer } from './support/traced-server.ts';

// The statements of a PostgreSQL server pass through its pool: the same span tree as on the
// embedded database, with transactions' BEGIN and COMMIT as statements of their own.
describeTracedServer(
  'traces exported to an OTLP endpoint (PostgreSQL)',
  async () => {
    const database = await freshDatabase();
    if (database.url === null) throw new Error('run with ARBITER_TEST_DB=postgres');
    // The server process uses it; this process drops it at the end.
    return {
      env: { ARBITER_DATABASE_URL: database.url },
      drop: () => database.close(),
    };
  },
  { transactionStatements: true },
);
