/** natsjet's JetStream API, shaped like nats.js v3's `@nats-io/jetstream`. */
export type {
  AccountInfo,
  AccountLimits,
  ApiError,
  ClusterInfo,
  ConsumerConfig,
  ConsumerInfo,
  ConsumerPauseResponse,
  ConsumerResetResponse,
  ExternalStream,
  Nanos,
  Placement,
  PriorityPolicy,
  PullPriority,
  PurgeResponse,
  Republish,
  SequenceInfo,
  StreamAlternate,
  StreamConfig,
  StreamInfo,
  StreamInfoRequestOptions,
  StreamSource,
  StreamSourceInfo,
  StreamState,
  SubjectTransform,
} from "../raw.js";
export { AckBatch, type AckBatchOptions, type AckOptions, type AckReport, type CommitOptions } from "./ack_batch.js";
export {
  JetStreamClient,
  jetstream,
  jetstreamManager,
  type JetStreamManagerOptions,
  type JetStreamOptions,
  type JetStreamPublishOptions,
  type PubAck,
} from "./client.js";
export {
  Consumer,
  Consumers,
  isPullConsumer,
  isPushConsumer,
  OrderedConsumer,
  PushConsumer,
  type ConsumeOptions,
  type FetchOptions,
  type NextOptions,
  type OrderedConsumerOptions,
  type PushConsumerOptions,
} from "./consumer.js";
export {
  ConsumerMessages,
  type ConsumerCallbackFn,
  type ConsumerStatus,
  type FetchEnd,
} from "./consumer_messages.js";
export {
  AckPolicy,
  DeliverPolicy,
  DirectMsgHeaders,
  DiscardPolicy,
  JsHeaders,
  PersistMode,
  PubHeaders,
  ReplayPolicy,
  RepublishHeaders,
  RetentionPolicy,
  StorageType,
  StoreCompression,
} from "./enums.js";
export type { AckKind, DeliveryInfo, JsMsg, JsMsgNextOptions } from "./jsmsg.js";
export { CheckpointLedger, type LedgerEvent, type LedgerOptions, type LedgerWarning } from "./ledger.js";
export { Lister } from "./lister.js";
export {
  ConsumerAPI,
  DirectStreamAPI,
  JetStreamManager,
  Stream,
  StreamAPI,
  StoredMsgs,
  type DirectBatchCallback,
  type DirectBatchOptions,
  type DirectLastFor,
  type DirectMsgRequest,
  type MsgRequest,
  type PurgeOpts,
  type StoredMsg,
  type Streams,
} from "./manager.js";
