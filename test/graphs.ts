import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { Annotation, END, MessagesAnnotation, StateGraph, interrupt } from '@langchain/langgraph';
import { emitMessage, requireAuth } from '@langgraph-a2a/stream-helpers';

/** A graph whose node throws with a secret in the message: the client must not see it. */
export const throwingGraph = () =>
  new StateGraph(MessagesAnnotation)
    .addNode('boom', () => {
      throw new Error('database password is hunter2');
    })
    .addEdge('__start__', 'boom')
    .compile();

/** A fake model that streams `text` one character per token. */
export const streamingGraph = (text: string) => {
  const model = new FakeListChatModel({ responses: [text] });
  return new StateGraph(MessagesAnnotation)
    .addNode('chat', async (state, config) => ({ messages: [await model.invoke(state.messages, config)] }))
    .addEdge('__start__', 'chat')
    .compile();
};

/** A node returning a whole AIMessage (no token stream). */
export const wholeMessageGraph = () =>
  new StateGraph(MessagesAnnotation)
    .addNode('answer', () => ({ messages: [new AIMessage({ id: 'ai-1', content: 'a whole answer' })] }))
    .addEdge('__start__', 'answer')
    .compile();

/** A graph without a messages channel that reads the inbox and answers via the outbox. */
export const inboxGraph = () =>
  new StateGraph(
    Annotation.Root({
      a2a_inbox: Annotation<{ message: { parts: Array<Record<string, unknown>> }; metadata: Record<string, unknown> }>,
      a2a_outbox: Annotation<unknown>,
    }),
  )
    .addNode('read', (state) => ({
      a2a_outbox: {
        task: {
          message: { parts: [{ text: `got ${state.a2a_inbox.message.parts.length} parts` }] },
          artifacts: [
            {
              artifactId: 'inbox',
              parts: [{ data: { parts: state.a2a_inbox.message.parts, metadata: state.a2a_inbox.metadata } }],
            },
          ],
        },
      },
    }))
    .addEdge('__start__', 'read')
    .compile();

/**
 * A graph whose steps wait on gates the test opens, and which records every step it
 * runs. Gates are numbered by node call (1, 2, ...), across runs of the same graph.
 */
export function gatedGraph(steps = 3) {
  const ran: number[] = [];
  const gates = new Map<number, () => void>();
  const stepFinished = new Map<number, Promise<void>>();
  const State = Annotation.Root({
    ...MessagesAnnotation.spec,
    step: Annotation<number>({ reducer: (_o, n) => n, default: () => 0 }),
  });
  const graph = new StateGraph(State)
    .addNode('work', async (state, config) => {
      const step = state.step + 1;
      ran.push(step);
      const call = ran.length;
      let done!: () => void;
      stepFinished.set(call, new Promise<void>((r) => (done = r)));
      emitMessage(`step ${step}`, config);
      await new Promise<void>((resolve) => gates.set(call, resolve));
      done();
      return step === steps ? { step, messages: [new AIMessage('done')] } : { step };
    })
    .addEdge('__start__', 'work')
    .addConditionalEdges('work', (s) => (s.step < steps ? 'work' : END))
    .compile();
  /** Resolves once node call `n` has started (it is then waiting at its gate). */
  const started = async (n: number) => {
    while (!gates.has(n)) await new Promise((r) => setImmediate(r));
  };
  return {
    graph,
    ran,
    started,
    open: (call: number) => gates.get(call)?.(),
    finished: (call: number) => stepFinished.get(call),
  };
}

/** Two parallel nodes that each interrupt with a raw value. */
export const parallelInterruptsGraph = () =>
  new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, a: Annotation<string>, b: Annotation<string> }))
    .addNode('left', () => ({ a: String(interrupt('left value?')) }))
    .addNode('right', () => ({ b: String(interrupt({ prompt: 'right value?', hint: 'a number' })) }))
    .addNode('join', (s) => ({ messages: [new AIMessage(`left=${s.a} right=${s.b}`)] }))
    .addEdge('__start__', 'left')
    .addEdge('__start__', 'right')
    .addEdge('left', 'join')
    .addEdge('right', 'join')
    .compile();

/** Asks for credentials, then proves it got them without repeating them. */
export const authGraph = () =>
  new StateGraph(MessagesAnnotation)
    .addNode('login', () => {
      const creds = requireAuth({ prompt: 'Sign in to continue.', scheme: 'Bearer' }) as {
        user: string;
        token: string;
      };
      return {
        messages: [new AIMessage(`signed in as ${creds.user} with a token of ${creds.token.length} characters`)],
      };
    })
    .addEdge('__start__', 'login')
    .compile();

/**
 * A graph whose model streams `before`, all in one turn of the event loop, then waits
 * for `open()`, then streams `after` the same way. `waiting` resolves when it waits.
 */
export function gatedTokenGraph(before: string[], after: string[]) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let markWaiting!: () => void;
  const waiting = new Promise<void>((resolve) => (markWaiting = resolve));
  class GatedModel extends BaseChatModel {
    _llmType(): string {
      return 'gated-tokens';
    }
    async _generate(): Promise<ChatResult> {
      const text = [...before, ...after].join('');
      return { generations: [{ text, message: new AIMessage(text) }] };
    }
    override async *_streamResponseChunks(
      _messages: BaseMessage[],
      _options: this['ParsedCallOptions'],
      runManager?: CallbackManagerForLLMRun,
    ): AsyncGenerator<ChatGenerationChunk> {
      for (const [i, token] of [...before, ...after].entries()) {
        if (i === before.length) {
          markWaiting();
          await gate;
        }
        const chunk = new ChatGenerationChunk({ text: token, message: new AIMessageChunk({ content: token }) });
        yield chunk;
        await runManager?.handleLLMNewToken(token, undefined, undefined, undefined, undefined, { chunk });
      }
    }
  }
  const model = new GatedModel({});
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('chat', async (state, config) => ({ messages: [await model.invoke(state.messages, config)] }))
    .addEdge('__start__', 'chat')
    .compile();
  return { graph, open, waiting };
}
