/**
 * natsjet's core NATS API, in every tier: the `natsjet/core` entries
 * (`tiers/core/`) export it alone, `natsjet/jetstream` adds JetStream
 * (`tiers/jetstream/`), `natsjet` (`index.ts`) everything. Each entry adds
 * `connect` (and its alias `wsconnect`) and `createInbox` over its own
 * wasm build (`entry_web.ts`, `entry_node.ts`).
 * Shaped like nats.js v3; every module here only adapts shapes around the
 * raw wasm exports, those of the core tier's build (`raw_core.ts`).
 */
import type { ConnectionOptions, ReconnectToServerHandler, TlsOptions, connect as rawConnect } from "./raw_core.js";
import { NatsConnection } from "./connection.js";
import { StatusHub } from "./status.js";
import { prepare } from "./auth.js";
import { rawReconnectToServer } from "./reconnect.js";

export type { ConnectionOptions, ReconnectToServerHandler, TlsOptions };
export type { Server } from "./raw_core.js";
export {
  credsAuthenticator,
  jwtAuthenticator,
  nkeyAuthenticator,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
  type Auth,
  type Authenticator,
} from "./auth.js";
export { NatsConnection, type RequestOptions, type ServerInfo, type Stats } from "./connection.js";
export {
  AuthorizationError,
  ClosedConnectionError,
  ConnectionError,
  ConsumerNotFoundError,
  DrainingConnectionError,
  errors,
  InvalidArgumentError,
  InvalidNameError,
  InvalidOperationError,
  InvalidSubjectError,
  isMessageNotFound,
  JetStreamApiCodes,
  JetStreamApiError,
  JetStreamError,
  JetStreamNotEnabled,
  JetStreamStatusError,
  jserrors,
  NatsError,
  NoRespondersError,
  PermissionViolationError,
  ProtocolError,
  RequestError,
  StreamNotFoundError,
  TimeoutError,
  UserAuthenticationExpiredError,
  type ErrorKind,
} from "./errors.js";
export { Match, canonicalMIMEHeaderKey, headers, type MsgHdrs, type TraceOptions } from "./headers.js";
export type { JsonReviver, Msg, Payload, PublishOptions } from "./msg.js";
export type {
  ClientPingStatus,
  CloseStatus,
  ClusterUpdateStatus,
  ConnectedStatus,
  DisconnectStatus,
  ForceReconnectStatus,
  LDMStatus,
  ReconnectStatus,
  ReconnectingStatus,
  ServerErrorStatus,
  SlowConsumerStatus,
  StaleConnectionStatus,
  Status,
  StatusType,
} from "./status.js";
export { Responses, type RequestManyOptions, type RequestStrategy } from "./responses.js";
export { Subscription, type SubscriptionOptions } from "./subscription.js";
export { Empty, millis, nanos } from "./util.js";

/** @internal Connects through one wasm build's raw `connect`. */
export async function connectWith(
  raw: typeof rawConnect,
  options: ConnectionOptions = {},
): Promise<NatsConnection> {
  await prepare(options.authenticator);
  const hub = new StatusHub();
  const { reconnectToServer } = options;
  if (typeof reconnectToServer === "function") {
    // The wasm calls the raw form (bindings/reconnect.ts).
    const chooser = rawReconnectToServer(reconnectToServer) as unknown as ReconnectToServerHandler;
    options = { ...options, reconnectToServer: chooser };
  }
  return new NatsConnection(await raw(options, hub), hub);
}
