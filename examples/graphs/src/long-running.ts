import { AIMessage } from '@langchain/core/messages';
import { Annotation, END, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { emitMessage } from '@langgraph-a2a/stream-helpers';

const STEPS = Number(process.env.LONG_RUNNING_STEPS ?? 5);
const STEP_MS = Number(process.env.LONG_RUNNING_STEP_MS ?? 1000);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  step: Annotation<number>({ reducer: (_old, next) => next, default: () => 0 }),
});

/**
 * Slow steps, each one run of the `work` node announcing itself: cancel it half-way
 * and no further step runs. Tune with LONG_RUNNING_STEPS and LONG_RUNNING_STEP_MS.
 */
export const graph = new StateGraph(State)
  .addNode('work', async (state, config) => {
    const step = state.step + 1;
    emitMessage(`step ${step} of ${STEPS}`, config);
    await pause(STEP_MS);
    return step === STEPS ? { step, messages: [new AIMessage(`finished ${STEPS} steps`)] } : { step };
  })
  .addEdge('__start__', 'work')
  .addConditionalEdges('work', (state) => (state.step < STEPS ? 'work' : END))
  .compile({ name: 'long-running' });
