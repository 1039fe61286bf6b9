import type { IdsAndClock } from '../mapping/env.js';

export interface DeterministicOptions {
  /** The first timestamp. @defaultValue '2025-01-01T00:00:00.000Z' */
  start?: string;
  /** How far the clock moves at each reading, in ms. @defaultValue 1000 */
  stepMs?: number;
  /** Prefix of the ids. @defaultValue 'id' */
  prefix?: string;
}

/** Ids `id-0001`, `id-0002`… and a clock that ticks once per reading: stable frames. */
export function deterministicIdsAndClock(options: DeterministicOptions = {}): IdsAndClock {
  let ids = 0;
  let ticks = 0;
  const start = Date.parse(options.start ?? '2025-01-01T00:00:00.000Z');
  const step = options.stepMs ?? 1000;
  const prefix = options.prefix ?? 'id';
  return {
    newId: () => `${prefix}-${String(++ids).padStart(4, '0')}`,
    now: () => new Date(start + step * ticks++).toISOString(),
  };
}
