/**
 * The services API's types and constants (NATS ADR-32), under the names and
 * shapes of nats.js's `@nats-io/services` 3.0.0-25; the discovery replies
 * (`PING`, `INFO`, `STATS`) are the JSON every services library exchanges.
 */
import type { Nanos } from "../raw.js";
import type { Msg, Payload, PublishOptions } from "../msg.js";
import type { QueuedIterator } from "../reader.js";

export type { QueuedIterator };

/** The header with a service error's description. */
export const ServiceErrorHeader = "Nats-Service-Error";
/** The header with a service error's code (a number). */
export const ServiceErrorCodeHeader = "Nats-Service-Error-Code";

/** The discovery requests a service answers: `$SRV.<verb>[.<name>[.<id>]]`. */
export const ServiceVerb = { PING: "PING", STATS: "STATS", INFO: "INFO" } as const;
export type ServiceVerb = (typeof ServiceVerb)[keyof typeof ServiceVerb];

/** The `type` of each discovery reply. */
export const ServiceResponseType = {
  STATS: "io.nats.micro.v1.stats_response",
  INFO: "io.nats.micro.v1.info_response",
  PING: "io.nats.micro.v1.ping_response",
} as const;
export type ServiceResponseType = (typeof ServiceResponseType)[keyof typeof ServiceResponseType];

/**
 * An error a handler throws to answer with a code (`Nats-Service-Error-Code`;
 * anything else thrown answers 500), and the error a reply carries.
 */
export class ServiceError extends Error {
  code: number;

  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }

  /** Whether `msg` carries a service error's headers. */
  static isServiceError(msg: Msg): boolean {
    return ServiceError.toServiceError(msg) !== null;
  }

  /** The error in `msg`'s headers (an unreadable code is 400), or `null`. */
  static toServiceError(msg: Msg): ServiceError | null {
    const code = msg?.headers?.get(ServiceErrorCodeHeader) || "";
    if (code === "") return null;
    const description = msg.headers?.get(ServiceErrorHeader) || "";
    return new ServiceError(parseInt(code) || 400, description || code);
  }
}

/** A request to an endpoint: a message that can also answer with a service error. */
export interface ServiceMsg extends Msg {
  /** Answers with `data` and the error headers `code` and `description` (added to `opts.headers`). */
  respondError(code: number, description: string, data?: Payload, opts?: PublishOptions): boolean;
}

export type ServiceHandler = (err: Error | null, msg: ServiceMsg) => void;

export type Endpoint = {
  /** The subject it listens on (after its group's). */
  subject: string;
  /** Without one, the endpoint is an iterator of its requests. */
  handler?: ServiceHandler;
  metadata?: Record<string, string>;
  /** Its queue group; unset or `""`: its group's, else the service's. */
  queue?: string;
};

export type EndpointOptions = Partial<Endpoint>;

export type EndpointInfo = {
  name: string;
  subject: string;
  metadata?: Record<string, string>;
  queue_group?: string;
};

export interface ServiceGroup {
  /**
   * Listens on `<group>.<name>` (or `<group>.<opts.subject>`); `name` is
   * letters, digits, `-` and `_`. With no handler, iterate the result.
   */
  addEndpoint(name: string, opts?: ServiceHandler | EndpointOptions): QueuedIterator<ServiceMsg>;
  /** A subject prefix for endpoints; `queue` unset: this group's. */
  addGroup(subject?: string, queue?: string): ServiceGroup;
}

export type ServiceMetadata = {
  metadata?: Record<string, string>;
};

export interface ServiceResponse {
  type: ServiceResponseType;
}

/** The `PING` reply, and the fields every reply starts with. */
export type ServiceIdentity = ServiceResponse &
  ServiceMetadata & {
    /** The kind of service, shared by its instances. */
    name: string;
    /** This instance's id. */
    id: string;
    version: string;
  };

export type NamedEndpointStats = {
  name: string;
  subject: string;
  /** Requests handled (with no handler: handed to the iteration and done with). */
  num_requests: number;
  /** Handlers that threw, and failed `statsHandler` calls. */
  num_errors: number;
  /** The message of the last error. */
  last_error?: string;
  /** What `statsHandler` returned. */
  data?: unknown;
  /** Nanoseconds spent in the handler (or the loop's body). */
  processing_time: Nanos;
  average_processing_time: Nanos;
  queue_group?: string;
};

export type EndpointStats = ServiceIdentity & {
  endpoints?: NamedEndpointStats[];
  /** When the service started (or was `reset()`), as an ISO date. */
  started: string;
};

/** The `INFO` reply. */
export type ServiceInfo = ServiceIdentity & {
  description: string;
  metadata?: Record<string, string>;
  endpoints: EndpointInfo[];
};

export type ServiceConfig = {
  /** Letters, digits, `-` and `_`. */
  name: string;
  /** Must hold a `major.minor.patch`. */
  version: string;
  description?: string;
  /** Gives each endpoint's `data` in `STATS` replies. */
  statsHandler?: (endpoint: Endpoint) => Promise<unknown | null>;
  /** Frozen once the service is added. */
  metadata?: Record<string, string>;
  /** The queue group of every endpoint: `"q"` when unset; `""`: none. */
  queue?: string;
};

/** The `STATS` reply. */
export type ServiceStats = ServiceIdentity & EndpointStats;

export interface Service extends ServiceGroup {
  /** Resolves once stopped: with the error that stopped it, or `null`. */
  stopped: Promise<null | Error>;
  isStopped: boolean;
  stats(): Promise<ServiceStats>;
  info(): ServiceInfo;
  ping(): ServiceIdentity;
  /** Zeroes the endpoints' counters; `started` becomes now. */
  reset(): void;
  /** Drains every subscription, then resolves `stopped` with `err` (or `null`). */
  stop(err?: Error): Promise<null | Error>;
}

/** Discovery: each call's iterator yields one reply per service that answered. */
export interface ServiceClient {
  ping(name?: string, id?: string): Promise<QueuedIterator<ServiceIdentity>>;
  stats(name?: string, id?: string): Promise<QueuedIterator<ServiceStats>>;
  info(name?: string, id?: string): Promise<QueuedIterator<ServiceInfo>>;
}
