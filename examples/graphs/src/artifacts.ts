import { AIMessage } from '@langchain/core/messages';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { emitData, emitFile, emitMessage, emitTaskMetadata } from '@langgraph-a2a/stream-helpers';

/** Uses every stream helper: a progress message, task metadata, a data artifact and files. */
export const graph = new StateGraph(MessagesAnnotation)
  .addNode('report', (state, config) => {
    const topic = state.messages.at(-1)?.text || 'nothing';
    emitMessage(`Working on a report about ${topic}…`, config);
    emitTaskMetadata({ topic, words: topic.split(/\s+/).length }, config);
    emitData({ artifactId: 'summary', name: 'Summary', data: { topic, length: topic.length } }, config);
    emitFile(
      {
        artifactId: 'report',
        name: 'report.txt',
        filename: 'report.txt',
        mediaType: 'text/plain',
        bytes: Buffer.from(`Report about ${topic}\n`).toString('base64'),
        lastChunk: false,
      },
      config,
    );
    emitFile(
      {
        artifactId: 'report',
        mediaType: 'text/plain',
        filename: 'report.txt',
        bytes: Buffer.from('The end.\n').toString('base64'),
        append: true,
        lastChunk: true,
      },
      config,
    );
    emitFile({ name: 'Reference', url: 'https://example.com/reference.pdf', mediaType: 'application/pdf' }, config);
    return { messages: [new AIMessage(`The report about ${topic} is ready.`)] };
  })
  .addEdge('__start__', 'report')
  .compile({ name: 'artifacts' });
