/**
 * natsjet's whole JavaScript API, the `natsjet` entries' (`web.ts`,
 * `node.ts`): core NATS, JetStream, Key-Value, Object Store, fast ingest and consumer groups. Shaped like
 * nats.js v3; the smaller tiers (`natsjet/core`, `natsjet/jetstream`)
 * export parts of it over smaller wasm builds.
 */
export * from "./core.js";
export * from "./jetstream/index.js";
export * from "./kv/index.js";
export * from "./obj/index.js";
// Fast ingest: in the full build only (cargo feature wasm-fast-ingest), so natsjet/jetstream's wasm does not carry it.
export { FastPublisher, NewFastPublisher, type FastPubAck, type FastPublisherOptions } from "./jetstream/fast.js";
// Consumer groups: in the full build only (cargo feature wasm-groups), not natsjet/jetstream's.
export {
  ConsumerGroups,
  consumerGroups,
  type ConsumerGroupKind,
  type ConsumerGroupMemberState,
  type ElasticConsumerGroupConfig,
  GroupMessages,
  type GroupMsg,
  type JoinOptions,
  type MemberMapping,
  type PartitioningFilter,
  type StaticConsumerGroupConfig,
} from "./jetstream/groups.js";
