/**
 * natsjet's services API (NATS ADR-32), shaped like nats.js's
 * `@nats-io/services` 3.0.0-25 and imported from `natsjet/services`:
 * TypeScript over the connection's subscriptions and `requestMany`, so it
 * adds nothing to the wasm, nor to an app that does not import it.
 */
import type { NatsConnection } from "../connection.js";
import type { RequestManyOptions } from "../responses.js";
import { ServiceClientImpl } from "./client.js";
import { ServiceImpl } from "./service.js";
import type { Service, ServiceClient, ServiceConfig } from "./types.js";

export {
  ServiceError,
  ServiceErrorCodeHeader,
  ServiceErrorHeader,
  ServiceResponseType,
  ServiceVerb,
} from "./types.js";
export type {
  Endpoint,
  EndpointInfo,
  EndpointOptions,
  EndpointStats,
  NamedEndpointStats,
  QueuedIterator,
  Service,
  ServiceClient,
  ServiceConfig,
  ServiceGroup,
  ServiceHandler,
  ServiceIdentity,
  ServiceInfo,
  ServiceMetadata,
  ServiceMsg,
  ServiceResponse,
  ServiceStats,
} from "./types.js";

/** Adds services to a connection, and discovers them. */
export class Svcm {
  /** Services are added to, and discovered over, `nc`. */
  constructor(
    /** The connection the services use. */
    readonly nc: NatsConnection,
  ) {}

  /**
   * Starts a service: its discovery subscriptions at once, an endpoint's as
   * it is added. Rejects a bad name, queue or version (`INVALID_ARGUMENT`).
   */
  async add(config: ServiceConfig): Promise<Service> {
    return new ServiceImpl(this.nc, config);
  }

  /** A discovery client; `opts` as `requestMany`'s, `prefix` instead of `$SRV`. */
  client(opts?: Partial<RequestManyOptions>, prefix?: string): ServiceClient {
    return new ServiceClientImpl(this.nc, opts, prefix);
  }
}
