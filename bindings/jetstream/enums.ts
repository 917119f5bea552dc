/**
 * nats.js's enum-like constants, so code written for `@nats-io/jetstream`
 * keeps compiling; each value is the server's string, which plain strings
 * can use as well.
 */
import type {
  AckPolicy as AckPolicyName,
  DeliverPolicy as DeliverPolicyName,
  DiscardPolicy as DiscardPolicyName,
  ReplayPolicy as ReplayPolicyName,
  RetentionPolicy as RetentionPolicyName,
  StorageType as StorageTypeName,
  StoreCompression as StoreCompressionName,
} from "../raw.js";

export const AckPolicy = { None: "none", All: "all", Explicit: "explicit", FlowControl: "flow_control" } as const;
export type AckPolicy = AckPolicyName;
export const DeliverPolicy = {
  All: "all",
  Last: "last",
  New: "new",
  StartSequence: "by_start_sequence",
  StartTime: "by_start_time",
  LastPerSubject: "last_per_subject",
} as const;
export type DeliverPolicy = DeliverPolicyName;
export const ReplayPolicy = { Instant: "instant", Original: "original" } as const;
export type ReplayPolicy = ReplayPolicyName;
export const RetentionPolicy = { Limits: "limits", Interest: "interest", Workqueue: "workqueue" } as const;
export type RetentionPolicy = RetentionPolicyName;
export const DiscardPolicy = { Old: "old", New: "new" } as const;
export type DiscardPolicy = DiscardPolicyName;
export const StorageType = { File: "file", Memory: "memory" } as const;
export type StorageType = StorageTypeName;
export const StoreCompression = { None: "none", S2: "s2" } as const;
export type StoreCompression = StoreCompressionName;
export const PersistMode = { Default: "default", Async: "async" } as const;
export type PersistMode = (typeof PersistMode)[keyof typeof PersistMode];

/** Headers a JetStream publish may carry (nats.js's `PubHeaders`). */
export const PubHeaders = {
  MsgIdHdr: "Nats-Msg-Id",
  ExpectedStreamHdr: "Nats-Expected-Stream",
  ExpectedLastSeqHdr: "Nats-Expected-Last-Sequence",
  ExpectedLastMsgIdHdr: "Nats-Expected-Last-Msg-Id",
  ExpectedLastSubjectSequenceHdr: "Nats-Expected-Last-Subject-Sequence",
  ExpectedLastSubjectSequenceSubjectHdr: "Nats-Expected-Last-Subject-Sequence-Subject",
  MessageTTL: "Nats-TTL",
  Schedule: "Nats-Schedule",
  ScheduleTarget: "Nats-Schedule-Target",
  ScheduleSource: "Nats-Schedule-Source",
  ScheduleTTL: "Nats-Schedule-TTL",
  ScheduleTimeZone: "Nats-Schedule-Time-Zone",
  ScheduleRollup: "Nats-Schedule-Rollup",
  Scheduler: "Nats-Scheduler",
  ScheduleNext: "Nats-Schedule-Next",
} as const;
export type PubHeaders = (typeof PubHeaders)[keyof typeof PubHeaders];

/** Headers JetStream sets on what it delivers (nats.js's `JsHeaders`). */
export const JsHeaders = {
  StreamSourceHdr: "Nats-Stream-Source",
  LastConsumerSeqHdr: "Nats-Last-Consumer",
  LastStreamSeqHdr: "Nats-Last-Stream",
  ConsumerStalledHdr: "Nats-Consumer-Stalled",
  MessageSizeHdr: "Nats-Msg-Size",
  RollupHdr: "Nats-Rollup",
  RollupValueSubject: "sub",
  RollupValueAll: "all",
  PendingMessagesHdr: "Nats-Pending-Messages",
  PendingBytesHdr: "Nats-Pending-Bytes",
  RequiredApiLevel: "Nats-Required-Api-Level",
} as const;
export type JsHeaders = (typeof JsHeaders)[keyof typeof JsHeaders];

/** Headers of a direct get's answer (nats.js's `DirectMsgHeaders`). */
export const DirectMsgHeaders = {
  Stream: "Nats-Stream",
  Sequence: "Nats-Sequence",
  TimeStamp: "Nats-Time-Stamp",
  Subject: "Nats-Subject",
  LastSequence: "Nats-Last-Sequence",
  NumPending: "Nats-Num-Pending",
} as const;
export type DirectMsgHeaders = (typeof DirectMsgHeaders)[keyof typeof DirectMsgHeaders];

/** Headers of a republished message (nats.js's `RepublishHeaders`). */
export const RepublishHeaders = {
  Stream: "Nats-Stream",
  Subject: "Nats-Subject",
  Sequence: "Nats-Sequence",
  LastSequence: "Nats-Last-Sequence",
  Size: "Nats-Msg-Size",
} as const;
export type RepublishHeaders = (typeof RepublishHeaders)[keyof typeof RepublishHeaders];

/** The kinds of JetStream advisories, the last part of their `type` (nats.js's `AdvisoryKind`). */
export const AdvisoryKind = {
  API: "api_audit",
  StreamAction: "stream_action",
  ConsumerAction: "consumer_action",
  SnapshotCreate: "snapshot_create",
  SnapshotComplete: "snapshot_complete",
  RestoreCreate: "restore_create",
  RestoreComplete: "restore_complete",
  MaxDeliver: "max_deliver",
  Terminated: "terminated",
  Ack: "consumer_ack",
  StreamLeaderElected: "stream_leader_elected",
  StreamQuorumLost: "stream_quorum_lost",
  ConsumerLeaderElected: "consumer_leader_elected",
  ConsumerQuorumLost: "consumer_quorum_lost",
} as const;
export type AdvisoryKind = (typeof AdvisoryKind)[keyof typeof AdvisoryKind];
