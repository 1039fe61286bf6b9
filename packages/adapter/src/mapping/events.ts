import {
  Role,
  TaskState,
  type Artifact,
  type Message,
  type Part,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskStatusUpdateEvent,
} from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { IdsAndClock } from './env.js';

/** Identifies the task every event of one run belongs to. */
export interface RunIds {
  taskId: string;
  contextId: string;
}

type Metadata = Record<string, unknown>;

export const parts = {
  text: (text: string, metadata: Metadata = {}): Part => ({
    content: { $case: 'text', value: text },
    mediaType: 'text/plain',
    filename: '',
    metadata,
  }),
  data: (value: unknown, metadata: Metadata = {}): Part => ({
    content: { $case: 'data', value },
    mediaType: 'application/json',
    filename: '',
    metadata,
  }),
  fileUrl: (url: string, mediaType: string, filename = '', metadata: Metadata = {}): Part => ({
    content: { $case: 'url', value: url },
    mediaType,
    filename,
    metadata,
  }),
  fileBytes: (base64: string, mediaType: string, filename = '', metadata: Metadata = {}): Part => ({
    content: { $case: 'raw', value: Buffer.from(base64, 'base64') },
    mediaType,
    filename,
    metadata,
  }),
};

/** Text of all text parts of a message, in order, joined by newlines. */
export function textOf(message: Pick<Message, 'parts'> | undefined): string {
  if (!message) return '';
  return message.parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
}

/**
 * Factories for every event the executor publishes. Mappers build events only
 * through these, so the shape of an A2A event is decided in one place.
 */
export function eventFactory(ids: RunIds, env: IdsAndClock) {
  const agentMessage = (messageParts: Part[], opts: { messageId?: string; metadata?: Metadata } = {}): Message => ({
    messageId: opts.messageId ?? env.newId(),
    contextId: ids.contextId,
    taskId: ids.taskId,
    role: Role.ROLE_AGENT,
    parts: messageParts,
    metadata: opts.metadata ?? {},
    extensions: [],
    referenceTaskIds: [],
  });

  return {
    agentMessage,

    /** A direct reply: a Message that is not part of any task. */
    directMessage(messageParts: Part[], opts: { messageId?: string; metadata?: Metadata } = {}): AgentExecutionEvent {
      return AgentEvent.message({ ...agentMessage(messageParts, opts), taskId: '' });
    },

    task(
      state: TaskState,
      history: Message[],
      opts: { artifacts?: Artifact[]; metadata?: Metadata } = {},
    ): AgentExecutionEvent {
      const task: Task = {
        id: ids.taskId,
        contextId: ids.contextId,
        status: { state, message: undefined, timestamp: env.now() },
        artifacts: opts.artifacts ?? [],
        history,
        metadata: opts.metadata ?? {},
      };
      return AgentEvent.task(task);
    },

    status(state: TaskState, message?: Message, metadata: Metadata = {}): AgentExecutionEvent {
      const event: TaskStatusUpdateEvent = {
        taskId: ids.taskId,
        contextId: ids.contextId,
        status: { state, message, timestamp: env.now() },
        metadata,
      };
      return AgentEvent.statusUpdate(event);
    },

    artifact(
      artifact: Omit<Artifact, 'extensions' | 'metadata' | 'description' | 'name'> &
        Partial<Pick<Artifact, 'metadata' | 'description' | 'name'>>,
      opts: { append: boolean; lastChunk: boolean },
    ): AgentExecutionEvent {
      const event: TaskArtifactUpdateEvent = {
        taskId: ids.taskId,
        contextId: ids.contextId,
        artifact: {
          name: '',
          description: '',
          metadata: {},
          extensions: [],
          ...artifact,
        },
        append: opts.append,
        lastChunk: opts.lastChunk,
        metadata: {},
      };
      return AgentEvent.artifactUpdate(event);
    },
  };
}

export type EventFactory = ReturnType<typeof eventFactory>;

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
