import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { MemorySaver, type BaseCheckpointSaver } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import {
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type PushNotificationStore,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { DatabasePushNotificationStore, DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import { DatabaseRunLedger, MemoryRunLedger, type RunLedger } from './run-ledger.js';
import { DatabasePushOutbox, MemoryPushOutbox, type PushOutbox } from './push-outbox.js';
import { PUSH_CONFIGS_TABLE, TASKS_TABLE, migrate } from './schema.js';
import type { StoreSetting } from './setting.js';

/** Everything the server keeps, in one place: tasks, push configs, checkpoints, runs, message ids. */
export interface Persistence {
  setting: StoreSetting;
  taskStore: TaskStore;
  /** The task store itself refuses to change a terminal task's state (a database trigger). */
  keepsTerminalStates: boolean;
  pushStore: PushNotificationStore;
  checkpointer: BaseCheckpointSaver;
  ledger: RunLedger;
  /** Webhook deliveries not yet made. */
  pushOutbox: PushOutbox;
  /** The PostgreSQL pool, when the store is PostgreSQL (the live-event relay uses it). */
  pgPool?: pg.Pool;
  close(): Promise<void>;
}

const MIGRATION_LOCK_KEY = 0x6c676132; // "lga2"

async function withAdvisoryLock(pool: pg.Pool, fn: () => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await fn();
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    client.release();
  }
}

/** Opens the store and creates or migrates its tables (idempotent). */
export async function openPersistence(setting: StoreSetting): Promise<Persistence> {
  switch (setting.kind) {
    case 'memory':
      return {
        setting,
        taskStore: new InMemoryTaskStore(),
        keepsTerminalStates: false,
        pushStore: new InMemoryPushNotificationStore(),
        checkpointer: new MemorySaver(),
        ledger: new MemoryRunLedger(),
        pushOutbox: new MemoryPushOutbox(),
        close: async () => undefined,
      };
    case 'sqlite': {
      mkdirSync(dirname(setting.file), { recursive: true });
      const sqlite = new Database(setting.file);
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('busy_timeout = 5000');
      sqlite.pragma('synchronous = NORMAL');
      const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
      await migrate(db, 'sqlite');
      // The checkpointer shares the connection: one file holds everything.
      return {
        setting,
        taskStore: new DatabaseTaskStore(db, { tableName: TASKS_TABLE }),
        keepsTerminalStates: true,
        pushStore: new DatabasePushNotificationStore(db, { tableName: PUSH_CONFIGS_TABLE }),
        checkpointer: new SqliteSaver(sqlite),
        ledger: new DatabaseRunLedger(db),
        pushOutbox: new DatabasePushOutbox(db),
        close: async () => {
          await db.destroy();
        },
      };
    }
    case 'postgres': {
      const pool = new pg.Pool({ connectionString: setting.url, max: 10 });
      const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
      const checkpointer = new PostgresSaver(pool);
      // Instances starting together take turns: schema changes run one at a time.
      await withAdvisoryLock(pool, async () => {
        await migrate(db, 'postgres');
        await checkpointer.setup();
      });
      return {
        setting,
        taskStore: new DatabaseTaskStore(db, { tableName: TASKS_TABLE }),
        keepsTerminalStates: true,
        pushStore: new DatabasePushNotificationStore(db, { tableName: PUSH_CONFIGS_TABLE }),
        checkpointer,
        ledger: new DatabaseRunLedger(db),
        pushOutbox: new DatabasePushOutbox(db),
        pgPool: pool,
        close: async () => {
          await db.destroy(); // ends the pool too
        },
      };
    }
    default: {
      const unreachable: never = setting;
      return unreachable;
    }
  }
}
