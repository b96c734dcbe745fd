import pg from 'pg';

/** Looks (50 ms apart) for one fold to reach the lock: a healthy fold worker folds every second. */
const LOOKS = 2_400;
/** Locks taken and given up because the fold that reached them had stored nothing yet. */
const ROUNDS = 100;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Catches a fold between storing its stretch (its insert into `events` holds a row-exclusive
 * lock there) and its commit: the test holds `user_day_stats` in share mode, which the fold's
 * aggregate upsert waits for. `kill(name)` then kills (SIGKILL) the process whose connection is
 * named so and resolves once it has exited; the lock is given up only after that, and this
 * resolves with the name once the killed fold's backend has ended (its transaction undone).
 */
export async function killFoldBeforeCommit(
  databaseUrl: string,
  namePrefix: string,
  kill: (name: string) => Promise<void>,
): Promise<string> {
  const blocker = new pg.Client({ connectionString: databaseUrl });
  await blocker.connect();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      await blocker.query('begin');
      await blocker.query('lock table user_day_stats in share mode');
      const fold = await waitingFold(blocker, namePrefix);
      if (fold.stored) {
        await kill(fold.name);
        await blocker.query('rollback');
        await gone(blocker, fold.pid);
        return fold.name;
      }
      await blocker.query('rollback');
    }
    throw new Error(`no fold reached the lock with a stored stretch in ${ROUNDS} rounds`);
  } finally {
    await blocker.end();
  }
}

interface WaitingFold {
  pid: number;
  name: string;
  stored: boolean;
}

async function waitingFold(blocker: pg.Client, namePrefix: string): Promise<WaitingFold> {
  for (let look = 0; look < LOOKS; look++) {
    // pg_stat_activity is read once per transaction and kept: cleared, each look is fresh.
    await blocker.query('select pg_stat_clear_snapshot()');
    const { rows } = await blocker.query<WaitingFold>(
      `select a.pid, a.application_name as name,
          exists (select 1 from pg_locks l where l.pid = a.pid
            and l.relation = 'events'::regclass and l.mode = 'RowExclusiveLock') as stored
        from pg_stat_activity a
        where a.datname = current_database() and a.pid <> pg_backend_pid()
          and a.application_name like $1 || '%'
          and exists (select 1 from pg_locks w where w.pid = a.pid and not w.granted
            and w.relation = 'user_day_stats'::regclass)
        order by stored desc`,
      [namePrefix],
    );
    const first = rows[0];
    if (first !== undefined) return first;
    await pause(50);
  }
  throw new Error(`no fold waited on user_day_stats within ${LOOKS} looks`);
}

/** Waits until the backend has ended (and so rolled its transaction back). */
async function gone(blocker: pg.Client, pid: number): Promise<void> {
  for (let look = 0; look < LOOKS; look++) {
    const { rowCount } = await blocker.query('select 1 from pg_stat_activity where pid = $1', [
      pid,
    ]);
    if (rowCount === 0) return;
    await pause(50);
  }
  throw new Error(`backend ${pid} of the killed fold did not end within ${LOOKS} looks`);
}
