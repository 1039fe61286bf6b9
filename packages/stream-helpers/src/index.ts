export { emitData, emitFile, emitMessage, emitTaskMetadata, StreamHelperError } from './emit.js';
export {
  HELPER_TAG,
  RESERVED_PREFIX,
  helperEventSchema,
  isHelperEvent,
  dataPayloadSchema,
  filePayloadSchema,
  messagePayloadSchema,
  taskMetadataPayloadSchema,
  type DataPayload,
  type FilePayload,
  type HelperEvent,
  type HelperEventType,
  type JsonValue,
  type MessagePayload,
  type TaskMetadataPayload,
} from './schema.js';
export {
  requestInput,
  requireAuth,
  credentialVault,
  interruptPayloadSchema,
  CredentialsUnavailableError,
  type CredentialVault,
  type InterruptPayload,
  type RequestInputOptions,
  type RequireAuthOptions,
} from './interrupts.js';
