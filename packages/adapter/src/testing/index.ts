/**
 * Snapshot testing of a graph over A2A, without a model or a network: record a graph's
 * stream once, replay it through the real server, compare the frames with a file snapshot.
 */
export {
  FIXTURE_FORMAT,
  parseFixture,
  readFixture,
  serializeFixture,
  writeFixture,
  type Fixture,
  type FixtureHeader,
  type RecordedChunk,
  type RecordedEnd,
  type RecordedRequest,
  type RecordedRun,
} from './fixture.js';
export { recordGraphStream, type RecordConfig, type RecordInput, type RecordOptions } from './record.js';
export { ReplayGraph, replayGraph, type ReplayCall } from './replay.js';
export { deterministicIdsAndClock, type DeterministicOptions } from './ids.js';
export {
  RUN_CONTEXT_ID,
  formatExchanges,
  normalizeIds,
  runA2A,
  type A2AExchange,
  type A2AProtocol,
  type A2ARequest,
  type A2AStep,
  type RunA2AOptions,
} from './run-a2a.js';
