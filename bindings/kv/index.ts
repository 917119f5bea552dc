/** natsjet's Key-Value API, shaped like nats.js 3.4's `@nats-io/kv`. */
export { Bucket } from "./bucket.js";
export { Base64KeyCodec, NoopKvCodecs, type KvCodec, type KvCodecs, type KvKeyCodec, type KvPayloadCodec } from "./codec.js";
export { Kvm } from "./kvm.js";
export { KvWatchInclude } from "./types.js";
export type {
  KV,
  KvDeleteOptions,
  KvEntry,
  KvLimits,
  KvOptions,
  KvPurgeOptions,
  KvPutOptions,
  KvStatus,
  KvWatcher,
  KvWatchEntry,
  KvWatchOptions,
  QueuedIterator,
  RoKV,
} from "./types.js";
