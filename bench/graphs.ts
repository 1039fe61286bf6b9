/**
 * The graphs the benchmarks serve. `echo` is the example graph itself; the token graphs
 * run a fake chat model that streams a fixed list of tokens, so every server streams the
 * same text and a client can check it arrived whole and in order.
 */
import { randomUUID } from 'node:crypto';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { AIMessage, AIMessageChunk, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { Role, type SendMessageRequest } from '@a2a-js/sdk';
import { graph as exampleEcho } from '@langgraph-a2a/examples/echo';
import type { StreamableGraph } from 'langgraph-a2a';

/** How a fake model spaces its tokens. */
export type Pace =
  /** As fast as the consumer takes them: LangGraph delivers all of them in one event-loop turn (as FakeListChatModel). */
  | { kind: 'burst' }
  /** One token per event-loop turn (`setImmediate`), as chunks read from a socket arrive. */
  | { kind: 'turn' }
  /** A timer between tokens (a slow model; keeps streams open). */
  | { kind: 'every'; ms: number };

/** A chat model that streams `tokens` one chunk each, paced by `pace`. No network. */
export class TokenModel extends BaseChatModel {
  constructor(
    private readonly tokens: string[],
    private readonly pace: Pace,
  ) {
    super({});
  }

  _llmType(): string {
    return 'bench-tokens';
  }

  async _generate(): Promise<ChatResult> {
    const text = this.tokens.join('');
    return { generations: [{ text, message: new AIMessage(text) }] };
  }

  override async *_streamResponseChunks(
    _messages: BaseMessage[],
    _options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    for (const token of this.tokens) {
      if (this.pace.kind === 'turn') await new Promise((resolve) => setImmediate(resolve));
      if (this.pace.kind === 'every')
        await new Promise((resolve) => setTimeout(resolve, (this.pace as { ms: number }).ms));
      const chunk = new ChatGenerationChunk({ text: token, message: new AIMessageChunk({ content: token }) });
      yield chunk;
      await runManager?.handleLLMNewToken(token, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}

/** `n` distinct tokens ("t0 ", "t1 ", …): their concatenation is what a client must receive. */
export const benchTokens = (n: number): string[] => Array.from({ length: n }, (_, i) => `t${i} `);

/** A one-node graph whose node streams the model's answer. */
export function tokenGraph(tokens: string[], pace: Pace): StreamableGraph {
  const model = new TokenModel(tokens, pace);
  return new StateGraph(MessagesAnnotation)
    .addNode('model', async (state, config) => ({ messages: [await model.invoke(state.messages, config)] }))
    .addEdge('__start__', 'model')
    .compile({ name: 'tokens' }) as unknown as StreamableGraph;
}

export const TOKENS_PER_STREAM = 200;
/** Scenario 3: one token a second, fifteen tokens, so a thousand streams are open at once. */
export const SLOW_TOKENS = 15;
export const SLOW_EVERY_MS = 1000;

export type GraphName = 'echo' | 'tokens' | 'burst' | 'slow';

/** A fresh graph of each kind (the echo graph is the example module's instance). */
export function benchGraph(name: GraphName): StreamableGraph {
  switch (name) {
    case 'echo':
      return exampleEcho as unknown as StreamableGraph;
    case 'tokens':
      return tokenGraph(benchTokens(TOKENS_PER_STREAM), { kind: 'turn' });
    case 'burst':
      return tokenGraph(benchTokens(TOKENS_PER_STREAM), { kind: 'burst' });
    case 'slow':
      return tokenGraph(benchTokens(SLOW_TOKENS), { kind: 'every', ms: SLOW_EVERY_MS });
    default: {
      const unreachable: never = name;
      return unreachable;
    }
  }
}

/** The stream options the langgraph-a2a executor runs every graph with (executor.ts). */
export function servedStreamOptions(threadId: string, signal?: AbortSignal) {
  return {
    streamMode: ['values', 'messages', 'custom', 'updates'],
    subgraphs: true,
    configurable: { thread_id: threadId },
    signal,
  };
}

/** The graph input for one user text, as the inbound mapping builds it. */
export const userInput = (text: string, id: string) => ({ messages: [new HumanMessage({ content: text, id })] });

/** A SendMessage request (v1.0 objects, as the SDK client and request handler take them) with one text part. */
export const sendMessageRequest = (text: string): SendMessageRequest => ({
  tenant: '',
  message: {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: {} }],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: {},
});
