import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Message } from '@a2a-js/sdk';
import type { PendingInterrupt } from './interrupts.js';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const compiled = new Map<string, ValidateFunction>();

function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(key, fn);
  }
  return fn;
}

/** The answer in a message: the first data part's value, else the text parts joined. */
export function answerOf(message: Message): { found: boolean; value: unknown } {
  const data = message.parts.find((p) => p.content?.$case === 'data');
  if (data?.content?.$case === 'data') return { found: true, value: data.content.value };
  const text = message.parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
  return { found: text.length > 0, value: text };
}

function check(pending: PendingInterrupt, value: unknown): string | undefined {
  if (!pending.inputSchema) return undefined;
  let validate: ValidateFunction;
  try {
    validate = validatorFor(pending.inputSchema);
  } catch {
    return undefined; // An unusable schema from the graph does not block the user.
  }
  if (validate(value)) return undefined;
  return ajv.errorsText(validate.errors, { dataVar: 'answer' });
}

export type ResumeResult =
  | { ok: true; values: Array<{ pending: PendingInterrupt | undefined; value: unknown }> }
  | { ok: false; reason: string };

/**
 * Reads a client's answer to the pending interrupts and validates it against their
 * input schemas. One pending interrupt takes the answer as is; several take a data
 * part that is an object keyed by interrupt id.
 */
export function readResume(message: Message, pending: PendingInterrupt[]): ResumeResult {
  const answer = answerOf(message);
  if (!answer.found) return { ok: false, reason: 'The answer is empty.' };
  if (pending.length <= 1) {
    const p = pending[0];
    const problem = p ? check(p, answer.value) : undefined;
    return problem
      ? { ok: false, reason: `The answer does not match the expected input: ${problem}.` }
      : { ok: true, values: [{ pending: p, value: answer.value }] };
  }
  const byId = answer.value;
  if (typeof byId !== 'object' || byId === null || Array.isArray(byId)) {
    return {
      ok: false,
      reason: `Several questions are pending: answer with a data part that maps each interrupt id (${pending.map((p) => p.id).join(', ')}) to its answer.`,
    };
  }
  const values: Array<{ pending: PendingInterrupt; value: unknown }> = [];
  const problems: string[] = [];
  for (const p of pending) {
    if (!(p.id in byId)) {
      problems.push(`no answer for interrupt ${p.id}`);
      continue;
    }
    const value = (byId as Record<string, unknown>)[p.id];
    const problem = check(p, value);
    if (problem) problems.push(`interrupt ${p.id}: ${problem}`);
    else values.push({ pending: p, value });
  }
  return problems.length > 0
    ? { ok: false, reason: `The answer is incomplete or invalid: ${problems.join('; ')}.` }
    : { ok: true, values };
}
