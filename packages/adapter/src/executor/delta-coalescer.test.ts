import { describe, expect, it } from 'vitest';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import { TaskState } from '@a2a-js/sdk';
import { eventFactory } from '../mapping/events.js';
import { StreamDeltaArtifact } from '../mapping/stream-delta.js';
import { DELTA_MESSAGE_ID_KEY } from '../mapping/messages-mode.js';
import { DeltaCoalescer } from './delta-coalescer.js';

const env = { newId: () => 'id', now: () => '2026-01-01T00:00:00.000Z' };
const events = eventFactory({ taskId: 't', contextId: 'c' }, env);

type Step = { delta: [string, string] } | { status: true } | { close: true } | { flush: true };

/** What each sent event carries: the delta parts as `messageId:text`, or the other event's kind. */
function describeSent(sent: AgentExecutionEvent[]): string[] {
  return sent.map((e) => {
    if (e.kind !== 'artifactUpdate') return e.kind;
    const parts = e.data.artifact!.parts.map((p) => {
      const text = p.content?.$case === 'text' ? p.content.value : '?';
      return `${String(p.metadata?.[DELTA_MESSAGE_ID_KEY] ?? '')}:${text}`;
    });
    return `${e.data.append ? '+' : ''}${e.data.lastChunk ? 'last ' : ''}[${parts.join(' | ')}]`;
  });
}

function play(steps: Step[]): string[] {
  const sent: AgentExecutionEvent[] = [];
  const coalescer = new DeltaCoalescer((e) => sent.push(e));
  const delta = new StreamDeltaArtifact(events);
  for (const step of steps) {
    if ('delta' in step) coalescer.publish(delta.push({ messageId: step.delta[0], text: step.delta[1], node: 'n' }));
    else if ('status' in step) coalescer.publish([events.status(TaskState.TASK_STATE_WORKING)]);
    else if ('close' in step) coalescer.publish(delta.close());
    else coalescer.flush();
  }
  coalescer.flush();
  return describeSent(sent);
}

describe('DeltaCoalescer', () => {
  it.each<[string, Step[], string[]]>([
    ['joins the text of one message', [{ delta: ['m1', 'a'] }, { delta: ['m1', 'b'] }], ['[m1:ab]']],
    [
      'keeps one part per message, in order',
      [{ delta: ['m1', 'a'] }, { delta: ['m2', 'b'] }, { delta: ['m2', 'c'] }],
      ['[m1:a | m2:bc]'],
    ],
    [
      'sends held deltas before any other event',
      [{ delta: ['m1', 'a'] }, { status: true }, { delta: ['m1', 'b'] }],
      ['[m1:a]', 'statusUpdate', '+[m1:b]'],
    ],
    [
      'never merges the last chunk: it follows the held deltas',
      [{ delta: ['m1', 'a'] }, { delta: ['m1', 'b'] }, { close: true }],
      ['[m1:ab]', '+last [:]'],
    ],
    [
      'a flush starts a new frame',
      [{ delta: ['m1', 'a'] }, { flush: true }, { delta: ['m1', 'b'] }],
      ['[m1:a]', '+[m1:b]'],
    ],
  ])('%s', (_name, steps, expected) => {
    expect(play(steps)).toEqual(expected);
  });

  it('sends what it holds in the next turn of the event loop without being flushed', async () => {
    const sent: AgentExecutionEvent[] = [];
    const coalescer = new DeltaCoalescer((e) => sent.push(e));
    const delta = new StreamDeltaArtifact(events);
    coalescer.publish(delta.push({ messageId: 'm1', text: 'a', node: 'n' }));
    coalescer.publish(delta.push({ messageId: 'm1', text: 'b', node: 'n' }));
    expect(sent).toHaveLength(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(describeSent(sent)).toEqual(['[m1:ab]']);
  });
});
