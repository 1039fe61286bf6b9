export { createServer, type CreateServerOptions } from './server/create-server.js';
export { langGraphA2A, type A2APluginOptions, type A2ADecoration } from './server/plugin.js';
export { buildAgentCard, renderCard, type CardOptions } from './server/card.js';
export {
  LangGraphAgentExecutor,
  GRAPH_FAILED_MESSAGE,
  SHUTDOWN_MESSAGE,
  type LangGraphAgentExecutorOptions,
} from './executor/executor.js';
export type { StreamableGraph } from './executor/graph.js';
export { AdapterTaskStore } from './stores/adapter-task-store.js';
export { LangGraphA2AError, type LangGraphA2AErrorCode } from './errors.js';
export { createLogger, silentLogger } from './logger.js';
export type { IdsAndClock } from './mapping/env.js';
export type { InboxEnvelope, FilePartMapping } from './mapping/inbound.js';
export { outboxSchema, type OutboxInput } from './mapping/outbox.js';
export {
  RESERVED_PREFIX,
  STREAM_DELTA_ARTIFACT_ID,
  STREAMED_AS_KEY,
  INBOX_CHANNEL,
  OUTBOX_CHANNEL,
} from './constants.js';
export { LangGraphRequestHandler, type BusyContextPolicy } from './server/request-handler.js';
export { INTERRUPTS_KEY, type PendingInterrupt } from './mapping/interrupts.js';
export { openPersistence, type Persistence } from './stores/persistence.js';
export { parseStoreSetting, describeStore, DEFAULT_SQLITE_FILE, type StoreSetting } from './stores/setting.js';
export { MemoryRunLedger, DatabaseRunLedger, type RunLedger, type RunRecord } from './stores/run-ledger.js';
export { settleOrphans, RESTARTED_MESSAGE, type RecoveryPolicy } from './server/recovery.js';
export { webhookReceiver, type WebhookReceiverOptions } from './server/webhook-receiver.js';
export { PushDeliveryService, type PushDeliveryOptions } from './server/push-sender.js';
export { refuseWebhookUrl, type WebhookUrlPolicy } from './server/url-guard.js';
