import type { Kysely } from 'kysely';
import { MESSAGES_TABLE, RUNS_TABLE } from './schema.js';

export interface RunRecord {
  taskId: string;
  contextId: string;
  instanceId: string;
  heartbeatAt: number;
}

/**
 * Which graph runs are in progress, on which server instance, and which message ids
 * were already received. Kept in the configured store, so that after a crash the runs
 * that were going on can be found and settled, and a retried message is recognized
 * by any instance.
 */
export interface RunLedger {
  start(run: { taskId: string; contextId: string; instanceId: string }): Promise<void>;
  finish(taskId: string): Promise<void>;
  /** Marks this instance's runs as alive. */
  heartbeat(instanceId: string, taskIds: string[]): Promise<void>;
  /** Runs of `instanceId`, and runs of any instance not heard of since `staleBefore` (epoch ms). */
  orphans(instanceId: string, staleBefore: number): Promise<RunRecord[]>;
  /** Takes an orphan over for `instanceId`; false when another instance took it first. */
  claim(run: RunRecord, instanceId: string): Promise<boolean>;
  /** The instance running `taskId` now, if any. */
  owner(taskId: string): Promise<string | undefined>;
  rememberMessage(messageId: string, taskId: string): Promise<void>;
  taskForMessage(messageId: string): Promise<string | undefined>;
}

export class MemoryRunLedger implements RunLedger {
  private readonly runs = new Map<string, RunRecord>();
  private readonly messages = new Map<string, string>();

  async start(run: { taskId: string; contextId: string; instanceId: string }) {
    this.runs.set(run.taskId, { ...run, heartbeatAt: Date.now() });
  }
  async finish(taskId: string) {
    this.runs.delete(taskId);
  }
  async heartbeat(instanceId: string, taskIds: string[]) {
    const now = Date.now();
    for (const id of taskIds) {
      const r = this.runs.get(id);
      if (r?.instanceId === instanceId) r.heartbeatAt = now;
    }
  }
  async orphans(instanceId: string, staleBefore: number) {
    return [...this.runs.values()]
      .filter((r) => r.instanceId === instanceId || r.heartbeatAt < staleBefore)
      .map((r) => ({ ...r }));
  }
  async claim(run: RunRecord, instanceId: string) {
    const current = this.runs.get(run.taskId);
    if (!current || current.instanceId !== run.instanceId || current.heartbeatAt !== run.heartbeatAt) return false;
    this.runs.set(run.taskId, { ...current, instanceId, heartbeatAt: Date.now() });
    return true;
  }
  async owner(taskId: string) {
    return this.runs.get(taskId)?.instanceId;
  }
  async rememberMessage(messageId: string, taskId: string) {
    this.messages.set(messageId, taskId);
    // Bounded: the oldest ids go first (a Map keeps insertion order).
    if (this.messages.size > 10_000) {
      const oldest = this.messages.keys().next().value;
      if (oldest !== undefined) this.messages.delete(oldest);
    }
  }
  async taskForMessage(messageId: string) {
    return this.messages.get(messageId);
  }
}

interface LedgerTables {
  [RUNS_TABLE]: { task_id: string; context_id: string; instance_id: string; started_at: number; heartbeat_at: number };
  [MESSAGES_TABLE]: { message_id: string; task_id: string; created_at: number };
}

export class DatabaseRunLedger implements RunLedger {
  private readonly db: Kysely<LedgerTables>;

  constructor(db: Kysely<unknown>) {
    this.db = db as unknown as Kysely<LedgerTables>;
  }

  async start(run: { taskId: string; contextId: string; instanceId: string }) {
    const now = Date.now();
    await this.db
      .insertInto(RUNS_TABLE)
      .values({
        task_id: run.taskId,
        context_id: run.contextId,
        instance_id: run.instanceId,
        started_at: now,
        heartbeat_at: now,
      })
      .onConflict((oc) => oc.column('task_id').doUpdateSet({ instance_id: run.instanceId, heartbeat_at: now }))
      .execute();
  }
  async finish(taskId: string) {
    await this.db.deleteFrom(RUNS_TABLE).where('task_id', '=', taskId).execute();
  }
  async heartbeat(instanceId: string, taskIds: string[]) {
    if (taskIds.length === 0) return;
    await this.db
      .updateTable(RUNS_TABLE)
      .set({ heartbeat_at: Date.now() })
      .where('instance_id', '=', instanceId)
      .where('task_id', 'in', taskIds)
      .execute();
  }
  async orphans(instanceId: string, staleBefore: number) {
    const rows = await this.db
      .selectFrom(RUNS_TABLE)
      .selectAll()
      .where((eb) => eb.or([eb('instance_id', '=', instanceId), eb('heartbeat_at', '<', staleBefore)]))
      .execute();
    return rows.map((r) => ({
      taskId: r.task_id,
      contextId: r.context_id,
      instanceId: r.instance_id,
      heartbeatAt: Number(r.heartbeat_at),
    }));
  }
  async claim(run: RunRecord, instanceId: string) {
    const result = await this.db
      .updateTable(RUNS_TABLE)
      .set({ instance_id: instanceId, heartbeat_at: Date.now() })
      .where('task_id', '=', run.taskId)
      .where('instance_id', '=', run.instanceId)
      .where('heartbeat_at', '=', run.heartbeatAt)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
  async owner(taskId: string) {
    const row = await this.db
      .selectFrom(RUNS_TABLE)
      .select('instance_id')
      .where('task_id', '=', taskId)
      .executeTakeFirst();
    return row?.instance_id;
  }
  async rememberMessage(messageId: string, taskId: string) {
    await this.db
      .insertInto(MESSAGES_TABLE)
      .values({ message_id: messageId, task_id: taskId, created_at: Date.now() })
      .onConflict((oc) => oc.column('message_id').doNothing())
      .execute();
  }
  async taskForMessage(messageId: string) {
    const row = await this.db
      .selectFrom(MESSAGES_TABLE)
      .select('task_id')
      .where('message_id', '=', messageId)
      .executeTakeFirst();
    return row?.task_id;
  }
}
