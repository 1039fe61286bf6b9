import { AIMessage } from '@langchain/core/messages';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';

const FORECASTS: Record<string, string> = {
  lisbon: 'sunny, 24 °C',
  oslo: 'light snow, -3 °C',
  nairobi: 'showers, 19 °C',
};

/** A stand-in for a weather service: it knows three cities and fails on any other. */
function forecast(city: string): string {
  const found = FORECASTS[city.trim().toLowerCase()];
  if (!found) throw new Error(`weather service: no station for "${city}"`);
  return found;
}

/**
 * Answers with the forecast for the city in the message. An unknown city makes the node
 * throw: the task fails with a generic message for the client, the error goes to the log.
 */
export const graph = new StateGraph(MessagesAnnotation)
  .addNode('lookup', (state) => {
    const city = state.messages.at(-1)?.text ?? '';
    return { messages: [new AIMessage(`${city}: ${forecast(city)}`)] };
  })
  .addEdge('__start__', 'lookup')
  .compile({ name: 'weather' });
