import type { Kysely } from 'kysely';
import { PUSH_OUTBOX_TABLE } from './schema.js';

/** One webhook POST waiting to be delivered. */
export interface PushDelivery {
  id: number;
  taskId: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The task's terminal state: always attempted, never dropped to make room. */
  final: boolean;
  attempts: number;
  nextAt: number;
}

export type NewPushDelivery = Omit<PushDelivery, 'id' | 'attempts' | 'nextAt'>;

/**
 * Deliveries not yet made, kept in the configured store so that they survive a restart.
 * Each instance delivers its own.
 */
export interface PushOutbox {
  add(instanceId: string, deliveries: NewPushDelivery[]): Promise<PushDelivery[]>;
  pending(instanceId: string): Promise<PushDelivery[]>;
  remove(id: number): Promise<void>;
  reschedule(id: number, attempts: number, nextAt: number): Promise<void>;
}

export class MemoryPushOutbox implements PushOutbox {
  private seq = 0;
  private readonly rows = new Map<number, PushDelivery & { instanceId: string }>();
  async add(instanceId: string, deliveries: NewPushDelivery[]) {
    return deliveries.map((d) => {
      const row = { ...d, id: ++this.seq, attempts: 0, nextAt: 0, instanceId };
      this.rows.set(row.id, row);
      return { ...row };
    });
  }
  async pending(instanceId: string) {
    return [...this.rows.values()].filter((r) => r.instanceId === instanceId).map((r) => ({ ...r }));
  }
  async remove(id: number) {
    this.rows.delete(id);
  }
  async reschedule(id: number, attempts: number, nextAt: number) {
    const r = this.rows.get(id);
    if (r) Object.assign(r, { attempts, nextAt });
  }
}

interface OutboxTable {
  [PUSH_OUTBOX_TABLE]: {
    id: number | bigint | string;
    instance_id: string;
    task_id: string;
    url: string;
    headers: string;
    body: string;
    final: number;
    attempts: number;
    next_at: number | string;
  };
}

export class DatabasePushOutbox implements PushOutbox {
  private readonly db: Kysely<OutboxTable>;
  constructor(db: Kysely<unknown>) {
    this.db = db as unknown as Kysely<OutboxTable>;
  }
  async add(instanceId: string, deliveries: NewPushDelivery[]) {
    const out: PushDelivery[] = [];
    for (const d of deliveries) {
      const row = await this.db
        .insertInto(PUSH_OUTBOX_TABLE)
        .values({
          instance_id: instanceId,
          task_id: d.taskId,
          url: d.url,
          headers: JSON.stringify(d.headers),
          body: d.body,
          final: d.final ? 1 : 0,
          attempts: 0,
          next_at: 0,
        } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
      out.push({ ...d, id: Number(row.id), attempts: 0, nextAt: 0 });
    }
    return out;
  }
  async pending(instanceId: string) {
    const rows = await this.db
      .selectFrom(PUSH_OUTBOX_TABLE)
      .selectAll()
      .where('instance_id', '=', instanceId)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      taskId: r.task_id,
      url: r.url,
      headers: JSON.parse(r.headers) as Record<string, string>,
      body: r.body,
      final: Number(r.final) === 1,
      attempts: Number(r.attempts),
      nextAt: Number(r.next_at),
    }));
  }
  async remove(id: number) {
    await this.db.deleteFrom(PUSH_OUTBOX_TABLE).where('id', '=', id).execute();
  }
  async reschedule(id: number, attempts: number, nextAt: number) {
    await this.db.updateTable(PUSH_OUTBOX_TABLE).set({ attempts, next_at: nextAt }).where('id', '=', id).execute();
  }
}
