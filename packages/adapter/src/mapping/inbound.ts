import { HumanMessage, type MessageContent } from '@langchain/core/messages';
import { Message, Task, type Part } from '@a2a-js/sdk';
import { CONFIGURABLE_ENVELOPE_KEY, INBOX_CHANNEL, MESSAGES_CHANNEL, OUTBOX_CHANNEL } from '../constants.js';

/** What a graph receives about the inbound A2A request (JSON, as on the v1.0 wire). */
export interface InboxEnvelope {
  task: Record<string, unknown> | null;
  message: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** How file parts reach `state.messages`: only through the inbox, or also as content blocks. */
export type FilePartMapping = 'inbox-only' | 'content-blocks';

export interface InboundRequest {
  message: Message;
  task: Task | undefined;
  metadata: Record<string, unknown> | undefined;
}

export interface InboundOptions {
  /** Channels of the compiled graph's state. */
  channels: ReadonlySet<string>;
  filePartMapping: FilePartMapping;
}

export function buildEnvelope(req: InboundRequest): InboxEnvelope {
  return {
    task: req.task ? (Task.toJSON(req.task) as Record<string, unknown>) : null,
    message: Message.toJSON(req.message) as Record<string, unknown>,
    metadata: req.metadata ?? {},
  };
}

function fileBlock(part: Part): Record<string, unknown> | undefined {
  const content = part.content;
  if (!content || (content.$case !== 'url' && content.$case !== 'raw')) return undefined;
  const url =
    content.$case === 'url'
      ? content.value
      : `data:${part.mediaType || 'application/octet-stream'};base64,${Buffer.from(content.value).toString('base64')}`;
  if (part.mediaType.startsWith('image/')) return { type: 'image_url', image_url: { url } };
  return {
    type: 'file',
    url,
    mimeType: part.mediaType || 'application/octet-stream',
    ...(part.filename ? { filename: part.filename } : {}),
  };
}

/**
 * Text parts, in order, joined by newlines, become one HumanMessage whose id is the
 * A2A messageId, so LangGraph's messages reducer replaces instead of duplicating.
 */
export function toHumanMessage(message: Message, filePartMapping: FilePartMapping): HumanMessage {
  const text = message.parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
  const blocks = filePartMapping === 'content-blocks' ? message.parts.flatMap((p) => fileBlock(p) ?? []) : [];
  const content = (
    blocks.length === 0 ? text : [...(text ? [{ type: 'text', text }] : []), ...blocks]
  ) as MessageContent;
  return new HumanMessage({ id: message.messageId, content });
}

/** The graph input for one inbound message (mapping rules 1 and 2 of DESIGN.md). */
export function toGraphInput(req: InboundRequest, opts: InboundOptions): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (opts.channels.has(MESSAGES_CHANNEL)) {
    input[MESSAGES_CHANNEL] = [toHumanMessage(req.message, opts.filePartMapping)];
  }
  if (opts.channels.has(INBOX_CHANNEL)) {
    input[INBOX_CHANNEL] = buildEnvelope(req);
  }
  if (opts.channels.has(OUTBOX_CHANNEL)) {
    // The outbox is per run: clear what an earlier turn left in the checkpoint.
    input[OUTBOX_CHANNEL] = null;
  }
  return input;
}

/** `config.configurable` for the run: the thread is the A2A context. */
export function toConfigurable(contextId: string, envelope: InboxEnvelope): Record<string, unknown> {
  return { thread_id: contextId, [CONFIGURABLE_ENVELOPE_KEY]: envelope };
}
