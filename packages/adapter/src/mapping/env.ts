import { randomUUID } from 'node:crypto';

/**
 * Where ids and timestamps come from. Injected so that recorded runs produce
 * stable frames (see `./testing`); the default is random UUIDs and the wall clock.
 */
export interface IdsAndClock {
  newId(): string;
  now(): string;
}

export const defaultIdsAndClock: IdsAndClock = {
  newId: () => randomUUID(),
  now: () => new Date().toISOString(),
};
