/** natsjet's Object Store API, shaped like nats.js 3.4's `@nats-io/obj`. */
export { Objm } from "./objm.js";
export type {
  ObjectInfo,
  ObjectLink,
  ObjectProgress,
  ObjectResult,
  ObjectStore,
  ObjectStoreGetOpts,
  ObjectStoreLink,
  ObjectStoreMeta,
  ObjectStoreMetaOptions,
  ObjectStoreOptions,
  ObjectStorePutOpts,
  ObjectStoreStatus,
  ObjectWatchInfo,
} from "./types.js";
