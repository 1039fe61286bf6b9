import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { SystemMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';

/**
 * A chat model: a real OpenAI-compatible one when OPENAI_API_KEY is set (with
 * OPENAI_BASE_URL and OPENAI_MODEL if given), otherwise a fake that streams a canned
 * answer token by token, so the example runs offline.
 */
export async function chatModel(): Promise<BaseChatModel> {
  if (process.env.OPENAI_API_KEY) {
    const { ChatOpenAI } = await import('@langchain/openai');
    return new ChatOpenAI({
      model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini',
      streaming: true,
      configuration: process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : undefined,
    });
  }
  return new FakeListChatModel({
    // Paced like a remote model (a token every few milliseconds), so clients see it stream.
    sleep: 8,
    responses: [
      'Hello! I am a LangGraph agent served over A2A. Ask me anything and I will stream my answer back token by token.',
      'This answer comes from a fake chat model, so the example works without a network or an API key.',
    ],
  });
}

const model = await chatModel();

export const graph = new StateGraph(MessagesAnnotation)
  .addNode('chat', async (state, config) => {
    const system = new SystemMessage('You are a helpful assistant. Answer briefly.');
    const reply = await model.invoke([system, ...state.messages], config);
    return { messages: [reply] };
  })
  .addEdge('__start__', 'chat')
  .compile({ name: 'chat' });
