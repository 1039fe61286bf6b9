import pg from 'pg';
import type { Logger } from 'pino';

const EVENTS_CHANNEL = 'langgraph_a2a_events';
const CONTROL_CHANNEL = 'langgraph_a2a_control';
/** PostgreSQL's NOTIFY payload limit is 8000 bytes; larger events travel as a "reload" hint. */
const MAX_PAYLOAD = 7900;

/** One relayed event: the StreamResponse JSON, or `reload` when it was too large to carry. */
export type RelayedEvent = { taskId: string; from: string } & ({ event: unknown } | { reload: true });

type EventListener = (event: RelayedEvent) => void;

/**
 * Live task events and cancel requests between server instances that share one
 * PostgreSQL database, over LISTEN/NOTIFY: the instance running a task publishes its
 * events; an instance serving SubscribeToTask for it listens; a cancel for a task that
 * runs elsewhere is sent to its owner. Events of one task keep their order: one
 * connection sends every notification of an instance, in order. Notifications that queue
 * up while one round trip is in flight go together in the next (one transaction, so each
 * carries a sequence number: PostgreSQL folds identical payloads of one transaction).
 */
export class PgRelay {
  private listener: pg.Client | undefined;
  private publisher: pg.Client | undefined;
  private sendChain: Promise<unknown> = Promise.resolve();
  private queued: Array<{ channel: string; payload: string }> = [];
  private seq = 0;
  private readonly subscribers = new Map<string, Set<EventListener>>();
  private cancelHandler: ((taskId: string) => void) | undefined;

  constructor(
    private readonly connectionString: string,
    readonly instanceId: string,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.listener = new pg.Client({ connectionString: this.connectionString });
    this.publisher = new pg.Client({ connectionString: this.connectionString });
    await Promise.all([this.listener.connect(), this.publisher.connect()]);
    this.listener.on('notification', (n) => this.onNotification(n.channel, n.payload));
    this.listener.on('error', (err) => this.logger.error({ err }, 'relay listener connection failed'));
    this.publisher.on('error', (err) => this.logger.error({ err }, 'relay publisher connection failed'));
    await this.listener.query(`LISTEN ${EVENTS_CHANNEL}`);
    await this.listener.query(`LISTEN ${CONTROL_CHANNEL}`);
  }

  async stop(): Promise<void> {
    await this.sendChain.catch(() => undefined);
    await Promise.all([this.listener?.end(), this.publisher?.end()].map((p) => p?.catch(() => undefined)));
  }

  /** Publishes one event of a task this instance runs (fire and forget, in order). */
  publish(taskId: string, event: unknown): void {
    const seq = ++this.seq;
    let payload = JSON.stringify({ taskId, from: this.instanceId, seq, event });
    if (Buffer.byteLength(payload) > MAX_PAYLOAD)
      payload = JSON.stringify({ taskId, from: this.instanceId, seq, reload: true });
    this.send(EVENTS_CHANNEL, payload);
    // Subscribers on this instance (following a task another instance ran) hear it too.
    const local = this.subscribers.get(taskId);
    if (local) for (const listener of [...local]) listener({ taskId, from: this.instanceId, event });
  }

  /** Asks the instance running `taskId` to cancel it. */
  requestCancel(taskId: string): void {
    this.send(CONTROL_CHANNEL, JSON.stringify({ op: 'cancel', taskId, from: this.instanceId, seq: ++this.seq }));
  }

  onCancel(handler: (taskId: string) => void): void {
    this.cancelHandler = handler;
  }

  /** Listens to a task's relayed events until the returned function is called. */
  subscribe(taskId: string, listener: EventListener): () => void {
    let set = this.subscribers.get(taskId);
    if (!set) this.subscribers.set(taskId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.subscribers.delete(taskId);
    };
  }

  private send(channel: string, payload: string): void {
    const publisher = this.publisher;
    if (!publisher) return;
    this.queued.push({ channel, payload });
    // One flush per round trip: it takes whatever queued up meanwhile.
    if (this.queued.length > 1) return;
    this.sendChain = this.sendChain
      .then(() => {
        const batch = this.queued;
        this.queued = [];
        // The simple query protocol runs the statements in order, in one transaction.
        const sql = batch
          .map((n) => `SELECT pg_notify(${publisher.escapeLiteral(n.channel)}, ${publisher.escapeLiteral(n.payload)});`)
          .join('\n');
        return publisher.query(sql);
      })
      .catch((err: unknown) => this.logger.warn({ err }, 'relay notify failed'));
  }

  private onNotification(channel: string, payload: string | undefined): void {
    if (!payload) return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(payload) as Record<string, unknown>;
    } catch {
      return;
    }
    if (message.from === this.instanceId) return;
    const taskId = typeof message.taskId === 'string' ? message.taskId : undefined;
    if (!taskId) return;
    if (channel === CONTROL_CHANNEL) {
      if (message.op === 'cancel') this.cancelHandler?.(taskId);
      return;
    }
    for (const listener of this.subscribers.get(taskId) ?? []) listener(message as RelayedEvent);
  }
}
