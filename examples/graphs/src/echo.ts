import { AIMessage } from '@langchain/core/messages';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';

/** Answers every message with its own text. No model, no network. */
export const graph = new StateGraph(MessagesAnnotation)
  .addNode('echo', (state) => {
    const last = state.messages.at(-1);
    return { messages: [new AIMessage(`echo: ${last?.text ?? ''}`)] };
  })
  .addEdge('__start__', 'echo')
  .compile({ name: 'echo' });
