import { AIMessage } from '@langchain/core/messages';
import { Annotation, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { emitData, requestInput } from '@langgraph-a2a/stream-helpers';
import { z } from 'zod';

const Decision = z.object({
  approved: z.boolean(),
  comment: z.string().optional(),
});

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  plan: Annotation<{ action: string; amount: number }>,
  decision: Annotation<z.infer<typeof Decision>>,
});

/**
 * Asks for approval before acting (the input-required flow): `propose` sends the plan as
 * an artifact, `approve` pauses the task until the client answers with a data part
 * matching `{ approved: boolean, comment?: string }`, `act` carries it out or not.
 */
export const graph = new StateGraph(State)
  .addNode('propose', (state, config) => {
    const request = state.messages.at(-1)?.text || 'do something';
    const plan = { action: request, amount: request.length };
    emitData({ artifactId: 'plan', name: 'Plan', data: plan }, config);
    return { plan };
  })
  .addNode('approve', (state) => {
    const decision = requestInput({
      prompt: `Approve the plan "${state.plan.action}"?`,
      schema: Decision,
      data: state.plan,
    });
    return { decision };
  })
  .addNode('act', (state) => {
    const { approved, comment } = state.decision;
    const text = approved
      ? `Done: ${state.plan.action}.${comment ? ` (${comment})` : ''}`
      : `Not done: the plan was rejected.${comment ? ` (${comment})` : ''}`;
    return { messages: [new AIMessage(text)] };
  })
  .addEdge('__start__', 'propose')
  .addEdge('propose', 'approve')
  .addEdge('approve', 'act')
  .compile({ name: 'approval' });
