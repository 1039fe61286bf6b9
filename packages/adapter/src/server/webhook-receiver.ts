import { createHash, timingSafeEqual } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyPluginAsync } from 'fastify';
import { StreamResponse, TaskState, type Artifact, type Task } from '@a2a-js/sdk';
import { z } from 'zod';

export interface WebhookReceiverOptions {
  /** Where the webhook is served. @defaultValue '/a2a/webhook' */
  path?: string;
  /** The token expected for a task (the one given in its push config); undefined refuses it. */
  tokenFor: (taskId: string) => string | undefined | Promise<string | undefined>;
  /** Called once per new event with the task as it now stands. */
  onTask: (task: Task, event: StreamResponse) => void | Promise<void>;
}

const frameSchema = z
  .object({ task: z.unknown(), message: z.unknown(), statusUpdate: z.unknown(), artifactUpdate: z.unknown() })
  .partial()
  .refine((f) => Object.values(f).filter((v) => v !== undefined).length === 1, {
    message: 'a push payload is a StreamResponse: exactly one of task, message, statusUpdate, artifactUpdate',
  });

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function mergeArtifact(artifacts: Artifact[], incoming: Artifact, append: boolean): Artifact[] {
  const i = artifacts.findIndex((a) => a.artifactId === incoming.artifactId);
  if (i < 0) return [...artifacts, incoming];
  const next = [...artifacts];
  next[i] = append ? { ...next[i]!, parts: [...next[i]!.parts, ...incoming.parts] } : incoming;
  return next;
}

/**
 * The orchestrator's side of push notifications: a Fastify plugin that receives an
 * agent's webhook POSTs, checks the bearer token of each task, validates the payload,
 * applies it to its copy of the task idempotently (a redelivered event changes nothing)
 * and hands the task to `onTask`. Answers 204, 401 (token) or 400 (payload).
 */
const receiver: FastifyPluginAsync<WebhookReceiverOptions> = async (fastify, opts) => {
  const tasks = new Map<string, Task>();
  const seen = new Map<string, Set<string>>();

  await fastify.register(async (scope) => {
    scope.post(opts.path ?? '/a2a/webhook', async (request, reply) => {
      const parsed = frameSchema.safeParse(request.body);
      if (!parsed.success) return reply.code(400).send({ error: z.prettifyError(parsed.error) });
      let frame: StreamResponse;
      try {
        frame = StreamResponse.fromJSON(request.body);
      } catch (error) {
        return reply.code(400).send({ error: (error as Error).message });
      }
      const p = frame.payload;
      const taskId = p?.$case === 'task' ? p.value.id : p?.value.taskId;
      if (!p || !taskId) return reply.code(400).send({ error: 'the payload names no task' });

      const expected = await opts.tokenFor(taskId);
      const auth = request.headers.authorization;
      const given = auth?.startsWith('Bearer ')
        ? auth.slice(7)
        : (request.headers['x-a2a-notification-token'] as string | undefined);
      if (!expected || !given || !sameToken(given, expected))
        return reply.code(401).send({ error: 'bad or missing token' });

      const digest = createHash('sha256').update(JSON.stringify(request.body)).digest('base64url');
      const seenForTask = seen.get(taskId) ?? new Set<string>();
      seen.set(taskId, seenForTask);
      if (seenForTask.has(digest)) return reply.code(204).send();
      seenForTask.add(digest);

      const current: Task = tasks.get(taskId) ?? {
        id: taskId,
        contextId: p.$case === 'task' ? p.value.contextId : p.value.contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined },
        artifacts: [],
        history: [],
        metadata: {},
      };
      let next: Task;
      switch (p.$case) {
        case 'task':
          next = p.value;
          break;
        case 'statusUpdate': {
          const message = p.value.status?.message;
          const history =
            message && !current.history.some((m) => m.messageId === message.messageId)
              ? [...current.history, message]
              : current.history;
          next = { ...current, status: p.value.status, history };
          break;
        }
        case 'artifactUpdate':
          next = p.value.artifact
            ? { ...current, artifacts: mergeArtifact(current.artifacts, p.value.artifact, p.value.append) }
            : current;
          break;
        case 'message':
          next = current.history.some((m) => m.messageId === p.value.messageId)
            ? current
            : { ...current, history: [...current.history, p.value] };
          break;
        default: {
          const unreachable: never = p;
          return unreachable;
        }
      }
      tasks.set(taskId, next);
      await opts.onTask(structuredClone(next), frame);
      return reply.code(204).send();
    });
  });
};

export const webhookReceiver = fp(receiver, { fastify: '5.x', name: 'langgraph-a2a-webhook-receiver' });
