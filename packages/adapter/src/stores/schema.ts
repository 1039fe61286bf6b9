import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import { taskStateToJSON } from '@a2a-js/sdk';
import { TERMINAL_STATES } from '../mapping/events.js';

/** Table names: prefixed, so the server can share a database with an application. */
export const TASKS_TABLE = 'a2a_tasks';
export const PUSH_CONFIGS_TABLE = 'a2a_push_notification_configs';
export const RUNS_TABLE = 'langgraph_a2a_runs';
export const MESSAGES_TABLE = 'langgraph_a2a_messages';
export const PUSH_OUTBOX_TABLE = 'langgraph_a2a_push_outbox';

type Dialect = 'sqlite' | 'postgres';

/** How the task table spells the terminal states (`status_state`). */
const TERMINAL_STATE_NAMES = [...TERMINAL_STATES].map((s) => taskStateToJSON(s));

const collated = (dialect: Dialect, length: number) =>
  sql.raw(`varchar(${length}) ${dialect === 'postgres' ? 'collate "C"' : 'collate binary'}`);

class StaticProvider implements MigrationProvider {
  constructor(private readonly migrations: Record<string, Migration>) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return this.migrations;
  }
}

/**
 * The SDK's task and push-config tables, created with the same migration names and
 * ledger tables as its `a2a-db` tool, so `a2a-db status` sees them as migrated.
 */
function sdkMigrations(dialect: Dialect) {
  const tasks: Record<string, Migration> = {
    '0001_create_tasks': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable(TASKS_TABLE)
          .addColumn('tenant', collated(dialect, 255), (c) => c.notNull())
          .addColumn('owner', collated(dialect, 255), (c) => c.notNull())
          .addColumn('id', collated(dialect, 36), (c) => c.notNull())
          .addColumn('context_id', collated(dialect, 36), (c) => c.notNull())
          .addColumn('status_last_updated', 'bigint', (c) => c.notNull())
          .addColumn('status_state', collated(dialect, 255))
          .addColumn('status', 'text')
          .addColumn('artifacts', 'text')
          .addColumn('history', 'text')
          .addColumn('metadata', 'text')
          .addColumn('protocol_version', 'varchar(255)')
          .addPrimaryKeyConstraint(`${TASKS_TABLE}_pkey`, ['tenant', 'owner', 'id'])
          .execute();
        await db.schema
          .createIndex(`${TASKS_TABLE}_scope_updated_idx`)
          .on(TASKS_TABLE)
          .columns(['tenant', 'owner', 'status_last_updated', 'id'])
          .execute();
        await db.schema
          .createIndex(`${TASKS_TABLE}_scope_context_updated_idx`)
          .on(TASKS_TABLE)
          .columns(['tenant', 'owner', 'context_id', 'status_last_updated', 'id'])
          .execute();
      },
    },
  };
  const push: Record<string, Migration> = {
    '0001_create_push_notification_configs': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable(PUSH_CONFIGS_TABLE)
          .addColumn('tenant', collated(dialect, 255), (c) => c.notNull())
          .addColumn('owner', collated(dialect, 255), (c) => c.notNull())
          .addColumn('task_id', collated(dialect, 36), (c) => c.notNull())
          .addColumn('config_id', collated(dialect, 36), (c) => c.notNull())
          .addColumn('config_data', 'text')
          .addColumn('protocol_version', 'varchar(255)')
          .addPrimaryKeyConstraint(`${PUSH_CONFIGS_TABLE}_pkey`, ['tenant', 'owner', 'task_id', 'config_id'])
          .execute();
      },
    },
  };
  return [
    { ledger: `a2a_${TASKS_TABLE}_migrations`, lock: 'a2a_migrations_lock', migrations: tasks },
    { ledger: `a2a_${PUSH_CONFIGS_TABLE}_migrations`, lock: 'a2a_migrations_lock', migrations: push },
  ];
}

/** The server's own tables: runs in progress (crash recovery), seen message ids, push deliveries. */
function ownMigrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_runs_and_messages': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable(RUNS_TABLE)
          .addColumn('task_id', 'varchar(255)', (c) => c.primaryKey())
          .addColumn('context_id', 'varchar(255)', (c) => c.notNull())
          .addColumn('instance_id', 'varchar(255)', (c) => c.notNull())
          .addColumn('started_at', 'bigint', (c) => c.notNull())
          .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex(`${RUNS_TABLE}_heartbeat_idx`).on(RUNS_TABLE).column('heartbeat_at').execute();
        await db.schema
          .createTable(MESSAGES_TABLE)
          .addColumn('message_id', 'varchar(255)', (c) => c.primaryKey())
          .addColumn('task_id', 'varchar(255)', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
    '0002_push_outbox': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable(PUSH_OUTBOX_TABLE)
          .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => c.primaryKey())
          .addColumn('instance_id', 'varchar(255)', (c) => c.notNull())
          .addColumn('task_id', 'varchar(255)', (c) => c.notNull())
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('headers', 'text', (c) => c.notNull())
          .addColumn('body', 'text', (c) => c.notNull())
          .addColumn('final', 'integer', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull())
          .addColumn('next_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex(`${PUSH_OUTBOX_TABLE}_instance_idx`)
          .on(PUSH_OUTBOX_TABLE)
          .columns(['instance_id', 'id'])
          .execute();
      },
    },
    '0003_terminal_tasks_stay_terminal': {
      // A terminal task keeps its state whoever writes last: an instance whose run was
      // settled (crash recovery) or canceled elsewhere may still save a late event. The
      // check and the write are one statement, so no instance can slip in between.
      async up(db: Kysely<unknown>) {
        const terminal = TERMINAL_STATE_NAMES.map((s) => `'${s}'`).join(', ');
        if (dialect === 'postgres') {
          await sql
            .raw(
              `CREATE OR REPLACE FUNCTION langgraph_a2a_keep_terminal() RETURNS trigger AS $$
BEGIN
  IF OLD.status_state IN (${terminal}) AND NEW.status_state IS DISTINCT FROM OLD.status_state THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql`,
            )
            .execute(db);
          await sql
            .raw(
              `CREATE TRIGGER ${TASKS_TABLE}_keep_terminal BEFORE UPDATE ON ${TASKS_TABLE}
FOR EACH ROW EXECUTE FUNCTION langgraph_a2a_keep_terminal()`,
            )
            .execute(db);
        } else {
          await sql
            .raw(
              `CREATE TRIGGER ${TASKS_TABLE}_keep_terminal BEFORE UPDATE ON ${TASKS_TABLE}
WHEN OLD.status_state IN (${terminal}) AND NEW.status_state IS NOT OLD.status_state
BEGIN SELECT RAISE(IGNORE); END`,
            )
            .execute(db);
        }
      },
    },
  };
}

/**
 * Creates or upgrades every table, idempotently: each set of migrations has a ledger,
 * and a migration already in its ledger is not run again. Safe to call at every start,
 * and from several instances at once (the migrator takes a lock).
 */
export async function migrate(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const sets = [
    ...sdkMigrations(dialect),
    { ledger: 'langgraph_a2a_migrations', lock: 'langgraph_a2a_migrations_lock', migrations: ownMigrations(dialect) },
  ];
  for (const set of sets) {
    const migrator = new Migrator({
      db,
      provider: new StaticProvider(set.migrations),
      migrationTableName: set.ledger,
      migrationLockTableName: set.lock,
    });
    // Two instances starting together race to create the same tables: the loser's
    // migration fails, and on a new attempt it finds the winner's ledger entries.
    let outcome = await migrator.migrateToLatest();
    for (let attempt = 1; outcome.error && attempt < 5; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 50));
      outcome = await migrator.migrateToLatest();
    }
    const { error, results } = outcome;
    if (error) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
      throw new Error(
        `database migration ${failed} (${set.ledger}) failed: ${(error as Error).message ?? String(error)}`,
        {
          cause: error,
        },
      );
    }
  }
}
