import { Annotation, MessagesAnnotation, StateGraph } from '@langchain/langgraph';

/**
 * Answers through `a2a_outbox`: "hi"/"hello" get a direct Message (no task is created);
 * anything else gets a Task patch with an artifact, metadata and a final message.
 */
const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  a2a_outbox: Annotation<unknown>,
});

export const graph = new StateGraph(State)
  .addNode('answer', (state) => {
    const text = state.messages.at(-1)?.text.trim() ?? '';
    if (/^(hi|hello)\b/i.test(text)) {
      return { a2a_outbox: { message: { parts: [{ text: 'Hello! (a direct message, no task)' }] } } };
    }
    return {
      a2a_outbox: {
        task: {
          artifacts: [
            {
              artifactId: 'word-count',
              name: 'Word count',
              parts: [{ data: { words: text.split(/\s+/).filter(Boolean).length } }],
            },
          ],
          metadata: { analyzed: true },
          message: { parts: [{ text: `Counted the words of: ${text}` }] },
        },
      },
    };
  })
  .addEdge('__start__', 'answer')
  .compile({ name: 'outbox' });
