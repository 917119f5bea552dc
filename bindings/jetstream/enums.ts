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

/** How a consumer's messages are acknowledged (`ack_policy`). */
export const AckPolicy = {
  /** Messages need no ack: the server counts them handled once sent. */
  None: "none",
  /** Acking a message acks every message of a lower stream sequence too. */
  All: "all",
  /** Every message must be acked on its own. */
  Explicit: "explicit",
  /**
   * Like `All`, but acked by flow-control answers: for durable consumers of
   * mirrors and sources (ADR-60, server 2.14+).
   */
  FlowControl: "flow_control",
} as const;
/** An ack policy's server name: a value of {@link AckPolicy}. */
export type AckPolicy = AckPolicyName;
/** Where a consumer starts in its stream (`deliver_policy`). */
export const DeliverPolicy = {
  /** From the stream's first message. */
  All: "all",
  /** From the stream's last message. */
  Last: "last",
  /** Only messages stored after the consumer is created. */
  New: "new",
  /** From the stream sequence in `opt_start_seq`. */
  StartSequence: "by_start_sequence",
  /** From the first message stored at or after `opt_start_time`. */
  StartTime: "by_start_time",
  /** The last message of every subject, then new ones. */
  LastPerSubject: "last_per_subject",
} as const;
/** A deliver policy's server name: a value of {@link DeliverPolicy}. */
export type DeliverPolicy = DeliverPolicyName;
/** The pace at which a consumer delivers stored messages (`replay_policy`). */
export const ReplayPolicy = {
  /** As fast as the consumer can take them. */
  Instant: "instant",
  /** With the delays there were between the messages when they were stored. */
  Original: "original",
} as const;
/** A replay policy's server name: a value of {@link ReplayPolicy}. */
export type ReplayPolicy = ReplayPolicyName;
/** When a stream removes messages (`retention`). */
export const RetentionPolicy = {
  /** Keep messages until a limit is reached, then apply the discard policy. */
  Limits: "limits",
  /** Keep a message while a consumer has yet to ack it (and the limits allow). */
  Interest: "interest",
  /** Remove a message once a consumer acks it: each message goes to one consumer. */
  Workqueue: "workqueue",
} as const;
/** A retention policy's server name: a value of {@link RetentionPolicy}. */
export type RetentionPolicy = RetentionPolicyName;
/** What a stream at a limit does with a new message (`discard`). */
export const DiscardPolicy = {
  /** Remove the oldest messages to make room. */
  Old: "old",
  /** Refuse the new message (the publish gets an error). */
  New: "new",
} as const;
/** A discard policy's server name: a value of {@link DiscardPolicy}. */
export type DiscardPolicy = DiscardPolicyName;
/** Where a stream keeps its messages (`storage`). */
export const StorageType = {
  /** On disk: survives a server restart. */
  File: "file",
  /** In the server's memory: lost when the server restarts. */
  Memory: "memory",
} as const;
/** A storage type's server name: a value of {@link StorageType}. */
export type StorageType = StorageTypeName;
/** How a stream compresses what it stores (`compression`). */
export const StoreCompression = {
  /** No compression. */
  None: "none",
  /** S2 compression. */
  S2: "s2",
} as const;
/** A compression's server name: a value of {@link StoreCompression}. */
export type StoreCompression = StoreCompressionName;
/** When a stream's writes reach the disk (`persist_mode`). */
export const PersistMode = {
  /** Synced to disk before the publish is acknowledged: the most durable. */
  Default: "default",
  /**
   * Acknowledged before the disk sync completes: faster, but a crash may lose
   * acknowledged messages (replicas reduce the risk).
   */
  Async: "async",
} as const;
/** A persist mode's server name: a value of {@link PersistMode}. */
export type PersistMode = (typeof PersistMode)[keyof typeof PersistMode];

/** Headers a JetStream publish may carry (nats.js's `PubHeaders`). */
export const PubHeaders = {
  /** The message id: the stream drops a second message with the same id within its `duplicate_window`. */
  MsgIdHdr: "Nats-Msg-Id",
  /** The publish fails unless the subject is stored by the stream of this name. */
  ExpectedStreamHdr: "Nats-Expected-Stream",
  /** The publish fails unless the stream's last sequence is this one. */
  ExpectedLastSeqHdr: "Nats-Expected-Last-Sequence",
  /** The publish fails unless the stream's last message has this message id. */
  ExpectedLastMsgIdHdr: "Nats-Expected-Last-Msg-Id",
  /** The publish fails unless the last message on the subject has this sequence (`0`: the subject has none). */
  ExpectedLastSubjectSequenceHdr: "Nats-Expected-Last-Subject-Sequence",
  /** The subject (may hold wildcards) whose last sequence `ExpectedLastSubjectSequenceHdr` checks, instead of the published subject. */
  ExpectedLastSubjectSequenceSubjectHdr: "Nats-Expected-Last-Subject-Sequence-Subject",
  /** The message's time to live: seconds or a duration such as `1h` (at least 1 s), or `never`; needs the stream's `allow_msg_ttl`. */
  MessageTTL: "Nats-TTL",
  /** Makes the message a schedule (ADR-51): `@at <RFC 3339 time>`, `@every <duration>` or a cron expression; needs `allow_msg_schedules`. */
  Schedule: "Nats-Schedule",
  /** The subject a schedule publishes its messages to. */
  ScheduleTarget: "Nats-Schedule-Target",
  /** A subject whose last message a schedule publishes instead of the schedule's own body. */
  ScheduleSource: "Nats-Schedule-Source",
  /** The `Nats-TTL` of the messages a schedule produces. */
  ScheduleTTL: "Nats-Schedule-TTL",
  /** The time zone a cron schedule's times are in (an IANA name). */
  ScheduleTimeZone: "Nats-Schedule-Time-Zone",
  /** Makes the messages a schedule produces roll up their subject (`sub`). */
  ScheduleRollup: "Nats-Schedule-Rollup",
  /** Set on messages a schedule produced: the subject of that schedule. Clients set it too, with `ScheduleNext: "purge"`, to cancel a schedule. */
  Scheduler: "Nats-Scheduler",
  /** Set on messages a schedule produced: the time of its next run, or `purge` for a delayed message. Clients set `purge` to cancel a schedule. */
  ScheduleNext: "Nats-Schedule-Next",
} as const;
export type PubHeaders = (typeof PubHeaders)[keyof typeof PubHeaders];

/** Headers JetStream sets on what it delivers (nats.js's `JsHeaders`). */
export const JsHeaders = {
  /** On a message a stream got from a source: where it came from. */
  StreamSourceHdr: "Nats-Stream-Source",
  /** On an idle heartbeat: the consumer sequence last delivered. */
  LastConsumerSeqHdr: "Nats-Last-Consumer",
  /** On an idle heartbeat: the stream sequence last delivered. */
  LastStreamSeqHdr: "Nats-Last-Stream",
  /** On an idle heartbeat: the subject to answer to resume a stalled push consumer. */
  ConsumerStalledHdr: "Nats-Consumer-Stalled",
  /** On a headers-only message: the size of the body left out. */
  MessageSizeHdr: "Nats-Msg-Size",
  /** Set on a publish to remove earlier messages: `sub` (its subject) or `all` (the whole stream); needs `allow_rollup_hdrs`. */
  RollupHdr: "Nats-Rollup",
  /** `Nats-Rollup` value: remove the earlier messages of the subject. */
  RollupValueSubject: "sub",
  /** `Nats-Rollup` value: remove every earlier message of the stream. */
  RollupValueAll: "all",
  /** On a pull status: the messages of the request left undelivered. */
  PendingMessagesHdr: "Nats-Pending-Messages",
  /** On a pull status: the bytes of the request left undelivered. */
  PendingBytesHdr: "Nats-Pending-Bytes",
  /** Set on an API request: the server refuses it unless it supports this JetStream API level (ADR-44). */
  RequiredApiLevel: "Nats-Required-Api-Level",
} as const;
export type JsHeaders = (typeof JsHeaders)[keyof typeof JsHeaders];

/** Headers of a direct get's answer (nats.js's `DirectMsgHeaders`). */
export const DirectMsgHeaders = {
  /** The stream the message was read from. */
  Stream: "Nats-Stream",
  /** The message's stream sequence. */
  Sequence: "Nats-Sequence",
  /** When the message was stored (RFC 3339). */
  TimeStamp: "Nats-Time-Stamp",
  /** The subject the message was published to. */
  Subject: "Nats-Subject",
  /** In a batch get: the sequence of the batch's previous message. */
  LastSequence: "Nats-Last-Sequence",
  /** In a batch get: the matching messages left after this one. */
  NumPending: "Nats-Num-Pending",
} as const;
export type DirectMsgHeaders = (typeof DirectMsgHeaders)[keyof typeof DirectMsgHeaders];

/** Headers of a republished message (nats.js's `RepublishHeaders`). */
export const RepublishHeaders = {
  /** The stream that stored the original message. */
  Stream: "Nats-Stream",
  /** The subject the original message was published to. */
  Subject: "Nats-Subject",
  /** The original message's stream sequence. */
  Sequence: "Nats-Sequence",
  /** The stream sequence of the previous message on that subject. */
  LastSequence: "Nats-Last-Sequence",
  /** With `headers_only` republishing: the size of the body left out. */
  Size: "Nats-Msg-Size",
} as const;
export type RepublishHeaders = (typeof RepublishHeaders)[keyof typeof RepublishHeaders];

/** The kinds of JetStream advisories, the last part of their `type` (nats.js's `AdvisoryKind`). */
export const AdvisoryKind = {
  /** A JetStream API request was audited. */
  API: "api_audit",
  /** A stream was created, updated or deleted. */
  StreamAction: "stream_action",
  /** A consumer was created, updated or deleted. */
  ConsumerAction: "consumer_action",
  /** A stream snapshot began. */
  SnapshotCreate: "snapshot_create",
  /** A stream snapshot completed. */
  SnapshotComplete: "snapshot_complete",
  /** A stream restore began. */
  RestoreCreate: "restore_create",
  /** A stream restore completed. */
  RestoreComplete: "restore_complete",
  /** A message reached its consumer's `max_deliver` without an ack. */
  MaxDeliver: "max_deliver",
  /** A message was terminated (`term()`). */
  Terminated: "terminated",
  /** A sampled ack (consumers with `sample_freq`). */
  Ack: "consumer_ack",
  /** A stream's replicas elected a new leader. */
  StreamLeaderElected: "stream_leader_elected",
  /** A stream lost its replicas' quorum. */
  StreamQuorumLost: "stream_quorum_lost",
  /** A consumer's replicas elected a new leader. */
  ConsumerLeaderElected: "consumer_leader_elected",
  /** A consumer lost its replicas' quorum. */
  ConsumerQuorumLost: "consumer_quorum_lost",
} as const;
export type AdvisoryKind = (typeof AdvisoryKind)[keyof typeof AdvisoryKind];
