import { RESERVED_PREFIX } from '@langgraph-a2a/stream-helpers';

export { RESERVED_PREFIX };

/** The transitory artifact that carries LLM token deltas. */
export const STREAM_DELTA_ARTIFACT_ID = `${RESERVED_PREFIX}stream-delta`;
export const STREAM_DELTA_ARTIFACT_NAME = 'Stream Delta';

/** Metadata key on a final message whose text was already streamed as deltas. */
export const STREAMED_AS_KEY = `${RESERVED_PREFIX}streamedAs`;

/** Graph state channels with a meaning to the server. */
export const INBOX_CHANNEL = 'a2a_inbox';
export const OUTBOX_CHANNEL = 'a2a_outbox';
export const MESSAGES_CHANNEL = 'messages';

/** Key of `config.configurable` that carries the inbound envelope for graphs without an inbox channel. */
export const CONFIGURABLE_ENVELOPE_KEY = 'a2a';
