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
