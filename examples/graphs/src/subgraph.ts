import { AIMessage, SystemMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { Annotation, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { emitData, emitMessage } from '@langgraph-a2a/stream-helpers';

const writer = new FakeListChatModel({
  responses: ['Two of three sources agree: the claim holds, with caveats.'],
});

/** The inner graph: drafts findings with a (fake) model whose tokens stream to the client. */
const research = new StateGraph(MessagesAnnotation)
  .addNode('draft', async (state, config) => {
    const reply = await writer.invoke([new SystemMessage('Summarize the evidence.'), ...state.messages], config);
    return { messages: [reply] };
  })
  .addEdge('__start__', 'draft')
  .compile({ name: 'research' });

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  question: Annotation<string>,
});

/**
 * A graph with a subgraph: `plan` announces the work, the compiled `research` subgraph
 * runs as a node and streams its model's tokens, `cite` attaches the sources as data.
 */
export const graph = new StateGraph(State)
  .addNode('plan', (state, config) => {
    const question = state.messages.at(-1)?.text ?? '';
    emitMessage(`Researching: ${question}`, config);
    return { question };
  })
  .addNode('research', research)
  .addNode('cite', (state, config) => {
    emitData(
      { artifactId: 'sources', name: 'Sources', data: { question: state.question, sources: ['a', 'b', 'c'] } },
      config,
    );
    const last = state.messages.at(-1);
    return last instanceof AIMessage ? {} : { messages: [new AIMessage('No findings.')] };
  })
  .addEdge('__start__', 'plan')
  .addEdge('plan', 'research')
  .addEdge('research', 'cite')
  .compile({ name: 'subgraph' });
