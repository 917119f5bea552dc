//! The TypeScript types of the JetStream API's JSON, which crosses the wasm
//! boundary as text: the server's names and units (durations in
//! nanoseconds, times as RFC 3339 strings), as in nats.js and as the Rust
//! serde types in [`crate::jetstream::api`] describe them. Fields the server
//! may leave out are optional. `Nanos` and `ApiError` are declared in
//! [`crate::wasm::error`], so the core tier's build (and TS) has them too.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_API_TYPES: &str = r#"
export type RetentionPolicy = "limits" | "interest" | "workqueue";
export type DiscardPolicy = "old" | "new";
export type StorageType = "file" | "memory";
export type StoreCompression = "none" | "s2";
export type PersistMode = "default" | "async";
export type DeliverPolicy = "all" | "last" | "new" | "by_start_sequence" | "by_start_time" | "last_per_subject";
/** `all` acks everything below a sequence for every client of the consumer: unsafe for shared workers. */
export type AckPolicy = "none" | "all" | "explicit" | "flow_control";
export type ReplayPolicy = "instant" | "original";
export type PriorityPolicy = "none" | "overflow" | "pinned_client" | "prioritized";

/** A stream's configuration. Limits left out (or 0) are the server's defaults (-1: unlimited). */
export interface StreamConfig {
  name: string;
  description?: string;
  /** Subjects stored; none means the stream's name (or nothing, for a mirror). */
  subjects?: string[];
  retention?: RetentionPolicy;
  max_consumers?: number;
  max_msgs?: number;
  max_bytes?: number;
  max_age?: Nanos;
  max_msgs_per_subject?: number;
  max_msg_size?: number;
  discard?: DiscardPolicy;
  /** With `discard: "new"`, apply `max_msgs_per_subject` per subject too. */
  discard_new_per_subject?: boolean;
  storage?: StorageType;
  num_replicas?: number;
  no_ack?: boolean;
  /** Window for `Nats-Msg-Id` de-duplication (server default 2 min). */
  duplicate_window?: Nanos;
  placement?: Placement;
  mirror?: StreamSource;
  sources?: StreamSource[];
  sealed?: boolean;
  deny_delete?: boolean;
  deny_purge?: boolean;
  /** Honour `Nats-Rollup` headers. */
  allow_rollup_hdrs?: boolean;
  /** Answer direct gets from any replica. */
  allow_direct?: boolean;
  mirror_direct?: boolean;
  republish?: Republish;
  compression?: StoreCompression;
  /** Sequence of the first message of a new stream. */
  first_seq?: number;
  subject_transform?: SubjectTransform;
  metadata?: Record<string, string>;
  /** Defaults for the stream's consumers. */
  consumer_limits?: { inactive_threshold?: Nanos; max_ack_pending?: number };
  /** Honour per-message `Nats-TTL` (server 2.11). */
  allow_msg_ttl?: boolean;
  subject_delete_marker_ttl?: Nanos;
  allow_msg_counter?: boolean;
  allow_atomic?: boolean;
  allow_msg_schedules?: boolean;
  allow_batched?: boolean;
  persist_mode?: PersistMode;
}
export interface Placement { cluster?: string; tags?: string[]; preferred?: string }
/** A stream this stream mirrors or sources from. */
export interface StreamSource {
  name: string;
  opt_start_seq?: number;
  opt_start_time?: string;
  filter_subject?: string;
  subject_transforms?: SubjectTransform[];
  external?: ExternalStream;
  consumer?: { name?: string; deliver_subject?: string };
}
/** API and delivery prefixes of a stream in another account or domain, e.g. `{ api: "$JS.hub.API" }`. */
export interface ExternalStream { api: string; deliver?: string }
export interface SubjectTransform { src: string; dest: string }
export interface Republish { src?: string; dest: string; headers_only?: boolean }

export interface StreamInfo {
  config: StreamConfig;
  created: string;
  state: StreamState;
  domain?: string;
  cluster?: ClusterInfo;
  mirror?: StreamSourceInfo;
  sources?: StreamSourceInfo[];
  /** Mirrors that can answer for this stream. */
  alternates?: StreamAlternate[];
  /** When the server gathered this info. */
  ts?: string;
}
/** A stream (this one or a mirror) that can answer reads, closest first. */
export interface StreamAlternate { name: string; domain?: string; cluster: string }
/** What a stream holds. Times are `0001-01-01T00:00:00Z` while it is empty. */
export interface StreamState {
  messages: number;
  bytes: number;
  first_seq: number;
  first_ts: string;
  last_seq: number;
  last_ts: string;
  num_subjects?: number;
  subjects?: Record<string, number>;
  num_deleted?: number;
  deleted?: number[];
  lost?: { msgs: number[]; bytes: number };
  consumer_count: number;
}
export interface ClusterInfo {
  name?: string;
  raft_group?: string;
  leader?: string;
  leader_since?: string;
  replicas?: { name: string; current: boolean; offline?: boolean; active: Nanos; lag?: number }[];
}
/** Progress of a mirror or source; `active` is `null` if it never got a message. */
export interface StreamSourceInfo {
  name: string;
  external?: ExternalStream;
  lag: number;
  active: Nanos | null;
  error?: ApiError;
  filter_subject?: string;
  subject_transforms?: SubjectTransform[];
}
export interface PurgeResponse { success: boolean; purged: number }

/**
 * A consumer's configuration. `ack_policy` defaults to `explicit` (as
 * nats.js) and `deliver_policy` to `all`. With `durable_name` it outlives its
 * clients; with only `name` it goes after `inactive_threshold` (5 s) unused.
 */
export interface ConsumerConfig {
  name?: string;
  durable_name?: string;
  description?: string;
  deliver_policy?: DeliverPolicy;
  /** With `deliver_policy: "by_start_sequence"`. */
  opt_start_seq?: number;
  /** With `deliver_policy: "by_start_time"` (RFC 3339). */
  opt_start_time?: string;
  ack_policy?: AckPolicy;
  /** Redeliver if not acked within this (server default 30 s). */
  ack_wait?: Nanos;
  max_deliver?: number;
  backoff?: Nanos[];
  filter_subject?: string;
  filter_subjects?: string[];
  replay_policy?: ReplayPolicy;
  rate_limit_bps?: number;
  sample_freq?: string;
  /** Pull requests the server queues (512). */
  max_waiting?: number;
  /** Unacked messages before delivery pauses (1000). */
  max_ack_pending?: number;
  headers_only?: boolean;
  max_batch?: number;
  max_expires?: Nanos;
  max_bytes?: number;
  deliver_subject?: string;
  deliver_group?: string;
  flow_control?: boolean;
  idle_heartbeat?: Nanos;
  inactive_threshold?: Nanos;
  num_replicas?: number;
  mem_storage?: boolean;
  metadata?: Record<string, string>;
  /** Deliver nothing until this RFC 3339 time (server 2.11). */
  pause_until?: string;
  priority_groups?: string[];
  priority_policy?: PriorityPolicy;
  priority_timeout?: Nanos;
}
export interface ConsumerInfo {
  stream_name: string;
  name: string;
  created: string;
  config: ConsumerConfig;
  /** The last message delivered. */
  delivered: SequenceInfo;
  /** Everything at or below is acked. */
  ack_floor: SequenceInfo;
  num_ack_pending: number;
  num_redelivered: number;
  num_waiting: number;
  num_pending: number;
  cluster?: ClusterInfo;
  push_bound?: boolean;
  paused?: boolean;
  pause_remaining?: Nanos;
  ts?: string;
  priority_groups?: { group: string; pinned_client_id?: string; pinned_ts?: string }[];
}
export interface SequenceInfo { consumer_seq: number; stream_seq: number; last_active?: string }
export interface ConsumerPauseResponse { paused: boolean; pause_until: string; pause_remaining?: Nanos }
/** A `CONSUMER.RESET` reply (server 2.14+): the consumer's info after the reset, and the stream sequence delivery restarts from. */
export type ConsumerResetResponse = ConsumerInfo & { reset_seq: number };
/** Details `streams.info` adds to the info, as nats.js's `StreamInfoRequestOptions`. */
export interface StreamInfoRequestOptions {
  /** Fill `state.deleted` with the sequences of deleted messages. */
  deleted_details?: boolean;
  /** Fill `state.subjects` with the message count of each subject matching this filter (wildcards allowed); every page is read. */
  subjects_filter?: string;
}

/** The account's JetStream usage and limits (nats.js: `JetStreamAccountStats`). */
export interface AccountInfo {
  memory: number;
  storage: number;
  reserved_memory: number;
  reserved_storage: number;
  streams: number;
  consumers: number;
  limits: AccountLimits;
  domain?: string;
  /** `level`: the JetStream API level of the server (ADR-44). */
  api: { level: number; total: number; errors: number; inflight?: number };
  tiers?: Record<string, Omit<AccountInfo, "domain" | "api" | "tiers">>;
}
/** -1 is unlimited. */
export interface AccountLimits {
  max_memory: number;
  max_storage: number;
  max_streams: number;
  max_consumers: number;
  max_ack_pending: number;
  memory_max_stream_bytes: number;
  storage_max_stream_bytes: number;
  max_bytes_required: boolean;
}
"#;
