import type { StreamResponse, Task } from '@a2a-js/sdk';
import {
  V1PushNotificationSerializer,
  type PushNotificationSender,
  type PushNotificationStore,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { V03PushNotificationSerializer } from '@a2a-js/sdk/compat/v0_3/server';
import type { Logger } from 'pino';
import { STREAM_DELTA_ARTIFACT_ID } from '../constants.js';
import { TERMINAL_STATES } from '../mapping/events.js';
import type { PushDelivery, PushOutbox } from '../stores/push-outbox.js';
import { refuseWebhookUrl, type WebhookUrlPolicy } from './url-guard.js';

export interface PushDeliveryOptions {
  store: PushNotificationStore;
  taskStore: TaskStore;
  outbox: PushOutbox;
  instanceId: string;
  urlPolicy: WebhookUrlPolicy;
  logger: Logger;
  /** Attempts per delivery before it is given up (and logged). @defaultValue 8 */
  maxAttempts?: number;
  /** First retry delay; each retry doubles it. @defaultValue 250 */
  backoffMs?: number;
  /** Longest retry delay. @defaultValue 30000 */
  maxBackoffMs?: number;
  /** Deliveries waiting per task and URL; beyond, the oldest non-final one is dropped. @defaultValue 1000 */
  maxQueued?: number;
  /** Timeout of one POST. @defaultValue 10000 */
  timeoutMs?: number;
}

const v1 = new V1PushNotificationSerializer();
const v03 = new V03PushNotificationSerializer();

function taskIdOf(r: StreamResponse): string | undefined {
  const p = r.payload;
  if (!p) return undefined;
  return p.$case === 'task' ? p.value.id : p.value.taskId || undefined;
}

/** Token deltas are a live preview for streaming clients; webhooks get durable changes. */
function isStreamDelta(r: StreamResponse): boolean {
  const p = r.payload;
  return p?.$case === 'artifactUpdate' && p.value.artifact?.artifactId === STREAM_DELTA_ARTIFACT_ID;
}

function isFinal(r: StreamResponse): boolean {
  const p = r.payload;
  if (p?.$case === 'statusUpdate') return TERMINAL_STATES.has(p.value.status!.state);
  if (p?.$case === 'task') return TERMINAL_STATES.has(p.value.status!.state);
  return false;
}

/**
 * Push notifications that never hold up a run: `send` (called by the SDK for every
 * task event; token deltas are not pushed) only writes the deliveries to the outbox, in the configured store; a
 * worker POSTs them, one at a time per task and URL so their order is kept, retrying
 * with exponential backoff. A delivery given up is logged with its task id. Pending
 * deliveries of this instance are picked up again after a restart.
 */
export class PushDeliveryService implements PushNotificationSender {
  private readonly queues = new Map<string, PushDelivery[]>();
  private readonly active = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly opts: PushDeliveryOptions) {}

  async start(): Promise<void> {
    for (const d of await this.opts.outbox.pending(this.opts.instanceId)) this.enqueue(d);
  }

  /** Stops delivering; what is not delivered stays in the outbox for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.all(this.inFlight);
  }

  /** Resolves when nothing is waiting to be delivered (tests, shutdown). */
  whenIdle(): Promise<void> {
    if (this.queues.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async send(response: StreamResponse, context: ServerCallContext): Promise<void> {
    const taskId = taskIdOf(response);
    if (!taskId || isStreamDelta(response)) return;
    const configs = this.opts.store.loadWithMetadata
      ? await this.opts.store.loadWithMetadata(taskId, context)
      : (await this.opts.store.load(taskId, context)).map((config) => ({ config, wireVersion: '1.0' }));
    if (configs.length === 0) return;
    let task: Task | undefined;
    const deliveries = [];
    for (const { config, wireVersion } of configs) {
      let body: string;
      if (wireVersion.startsWith('0.')) {
        // v0.3 webhooks receive the whole task with each event.
        task ??= await this.opts.taskStore.load(taskId, context);
        body = v03.serialize(response, task).body;
      } else {
        body = v1.serialize(response).body;
      }
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (config.authentication?.scheme && config.authentication.credentials) {
        headers.authorization = `${config.authentication.scheme} ${config.authentication.credentials}`;
      } else if (config.token) {
        headers.authorization = `Bearer ${config.token}`;
        headers['x-a2a-notification-token'] = config.token;
      }
      deliveries.push({ taskId, url: config.url, headers, body, final: isFinal(response) });
    }
    for (const d of await this.opts.outbox.add(this.opts.instanceId, deliveries)) this.enqueue(d);
  }

  private enqueue(d: PushDelivery): void {
    const key = `${d.taskId}\n${d.url}`;
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = []));
    queue.push(d);
    const max = this.opts.maxQueued ?? 1000;
    if (queue.length > max) {
      const i = queue.findIndex((q, index) => index > 0 && !q.final);
      if (i > 0) {
        const [dropped] = queue.splice(i, 1);
        this.opts.logger.warn(
          { taskId: d.taskId, url: d.url, event: 'push.dropped' },
          'push queue full: dropped the oldest pending event',
        );
        void this.opts.outbox.remove(dropped!.id);
      }
    }
    this.pump(key);
  }

  private pump(key: string): void {
    if (this.active.has(key) || this.stopped) return;
    const queue = this.queues.get(key);
    const head = queue?.[0];
    if (!head) {
      this.queues.delete(key);
      if (this.queues.size === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const w of waiters) w();
      }
      return;
    }
    const wait = head.nextAt - Date.now();
    if (wait > 0) {
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.pump(key);
      }, wait);
      this.timers.add(t);
      return;
    }
    this.active.add(key);
    const attempt = this.deliver(head)
      .catch((err: unknown) => {
        this.opts.logger.warn({ err, taskId: head.taskId }, 'push outbox unavailable');
        return false;
      })
      .then((settled) => {
        this.active.delete(key);
        if (settled) queue!.shift();
        this.pump(key);
      });
    this.inFlight.add(attempt);
    void attempt.finally(() => this.inFlight.delete(attempt));
  }

  /** One attempt; true when the delivery is settled (sent, or given up). */
  private async deliver(d: PushDelivery): Promise<boolean> {
    const log = this.opts.logger.child({ taskId: d.taskId });
    const refused = await refuseWebhookUrl(d.url, this.opts.urlPolicy);
    if (refused) {
      log.error({ url: d.url, event: 'push.refused', reason: refused }, 'push notification not delivered');
      await this.opts.outbox.remove(d.id);
      return true;
    }
    let error: string;
    try {
      const res = await fetch(d.url, {
        method: 'POST',
        headers: d.headers,
        body: d.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
      await res.body?.cancel();
      if (res.ok) {
        await this.opts.outbox.remove(d.id);
        return true;
      }
      error = `HTTP ${res.status}`;
    } catch (e) {
      error = (e as Error).message;
    }
    const attempts = d.attempts + 1;
    if (attempts >= (this.opts.maxAttempts ?? 8)) {
      log.error({ url: d.url, attempts, error, event: 'push.undeliverable' }, 'push notification given up');
      await this.opts.outbox.remove(d.id);
      return true;
    }
    const delay = Math.min((this.opts.backoffMs ?? 250) * 2 ** (attempts - 1), this.opts.maxBackoffMs ?? 30_000);
    d.attempts = attempts;
    d.nextAt = Date.now() + delay;
    log.warn(
      { url: d.url, attempts, error, retryInMs: delay, event: 'push.retry' },
      'push notification failed; will retry',
    );
    await this.opts.outbox.reschedule(d.id, attempts, d.nextAt);
    return false;
  }
}
