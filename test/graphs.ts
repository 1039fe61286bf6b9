import { AIMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { Annotation, MessagesAnnotation, StateGraph } from '@langchain/langgraph';

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
          artifacts: [{ artifactId: 'inbox', parts: [{ data: { parts: state.a2a_inbox.message.parts, metadata: state.a2a_inbox.metadata } }] }],
        },
      },
    }))
    .addEdge('__start__', 'read')
    .compile();
