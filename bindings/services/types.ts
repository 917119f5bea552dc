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
export const ServiceVerb = {
  /** Asks for each service's identity ({@link ServiceIdentity}). */
  PING: "PING",
  /** Asks for each service's counters ({@link ServiceStats}). */
  STATS: "STATS",
  /** Asks for each service's description and endpoints ({@link ServiceInfo}). */
  INFO: "INFO",
} as const;
/** A discovery verb: a value of {@link ServiceVerb}. */
export type ServiceVerb = (typeof ServiceVerb)[keyof typeof ServiceVerb];

/** The `type` of each discovery reply. */
export const ServiceResponseType = {
  /** A `STATS` reply. */
  STATS: "io.nats.micro.v1.stats_response",
  /** An `INFO` reply. */
  INFO: "io.nats.micro.v1.info_response",
  /** A `PING` reply. */
  PING: "io.nats.micro.v1.ping_response",
} as const;
/** A discovery reply's `type`: a value of {@link ServiceResponseType}. */
export type ServiceResponseType = (typeof ServiceResponseType)[keyof typeof ServiceResponseType];

/**
 * An error a handler throws to answer with a code (`Nats-Service-Error-Code`;
 * anything else thrown answers 500), and the error a reply carries.
 */
export class ServiceError extends Error {
  /** The error's code, HTTP-like (e.g. 400, 500), sent in `Nats-Service-Error-Code`. */
  code: number;

  /** An error with its `code`; `message` is sent in `Nats-Service-Error`. */
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

/**
 * Handles an endpoint's requests, one call per request (`err` is `null`).
 * An error it throws answers the request with that error's code (a
 * {@link ServiceError}'s, else 500) and counts in the endpoint's stats.
 */
export type ServiceHandler = (err: Error | null, msg: ServiceMsg) => void;

/** An endpoint's configuration. */
export type Endpoint = {
  /** The subject it listens on (after its group's). */
  subject: string;
  /** Without one, the endpoint is an iterator of its requests. */
  handler?: ServiceHandler;
  /** Reported in `INFO` replies. */
  metadata?: Record<string, string>;
  /** Its queue group; unset or `""`: its group's, else the service's. */
  queue?: string;
};

/** An endpoint's options for `addEndpoint`: its subject defaults to its name. */
export type EndpointOptions = Partial<Endpoint>;

/** An endpoint as `INFO` replies describe it. */
export type EndpointInfo = {
  /** The endpoint's name. */
  name: string;
  /** The subject it listens on (with its group's prefix). */
  subject: string;
  /** The metadata it was added with. */
  metadata?: Record<string, string>;
  /** The queue group it listens in; absent: none. */
  queue_group?: string;
};

/** Adds endpoints under a subject prefix (a service is the group with none). */
export interface ServiceGroup {
  /**
   * Listens on `<group>.<name>` (or `<group>.<opts.subject>`); `name` is
   * letters, digits, `-` and `_`. With no handler, iterate the result.
   */
  addEndpoint(name: string, opts?: ServiceHandler | EndpointOptions): QueuedIterator<ServiceMsg>;
  /** A subject prefix for endpoints; `queue` unset: this group's. */
  addGroup(subject?: string, queue?: string): ServiceGroup;
}

/** The metadata part of discovery replies. */
export type ServiceMetadata = {
  /** The service's metadata. */
  metadata?: Record<string, string>;
};

/** What every discovery reply has: its `type`. */
export interface ServiceResponse {
  /** Which reply this is. */
  type: ServiceResponseType;
}

/** The `PING` reply, and the fields every reply starts with. */
export type ServiceIdentity = ServiceResponse &
  ServiceMetadata & {
    /** The kind of service, shared by its instances. */
    name: string;
    /** This instance's id. */
    id: string;
    /** The service's version (semver). */
    version: string;
  };

/** An endpoint's counters in a `STATS` reply. */
export type NamedEndpointStats = {
  /** The endpoint's name. */
  name: string;
  /** The subject it listens on. */
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
  /** `processing_time` divided by `num_requests`, in nanoseconds. */
  average_processing_time: Nanos;
  /** The queue group it listens in; absent: none. */
  queue_group?: string;
};

/** The `STATS` reply's own fields. */
export type EndpointStats = ServiceIdentity & {
  /** Each endpoint's counters. */
  endpoints?: NamedEndpointStats[];
  /** When the service started (or was `reset()`), as an ISO date. */
  started: string;
};

/** The `INFO` reply. */
export type ServiceInfo = ServiceIdentity & {
  /** The service's description (`""` when none was given). */
  description: string;
  /** The service's metadata. */
  metadata?: Record<string, string>;
  /** The service's endpoints. */
  endpoints: EndpointInfo[];
};

/** What `Svcm.add` starts a service with. */
export type ServiceConfig = {
  /** Letters, digits, `-` and `_`. */
  name: string;
  /** Must hold a `major.minor.patch`. */
  version: string;
  /** Reported in `INFO` replies. */
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

/** A running service: a group without prefix, its discovery answers and stats. */
export interface Service extends ServiceGroup {
  /** Resolves once stopped: with the error that stopped it, or `null`. */
  stopped: Promise<null | Error>;
  /** Whether the service has stopped. */
  isStopped: boolean;
  /** Its current `STATS` reply. */
  stats(): Promise<ServiceStats>;
  /** Its `INFO` reply. */
  info(): ServiceInfo;
  /** Its `PING` reply. */
  ping(): ServiceIdentity;
  /** Zeroes the endpoints' counters; `started` becomes now. */
  reset(): void;
  /** Drains every subscription, then resolves `stopped` with `err` (or `null`). */
  stop(err?: Error): Promise<null | Error>;
}

/** Discovery: each call's iterator yields one reply per service that answered. */
export interface ServiceClient {
  /** `PING`s every service, those named `name`, or the one instance `id` of it. */
  ping(name?: string, id?: string): Promise<QueuedIterator<ServiceIdentity>>;
  /** Asks for `STATS`, of all services, those named `name`, or instance `id` of it. */
  stats(name?: string, id?: string): Promise<QueuedIterator<ServiceStats>>;
  /** Asks for `INFO`, of all services, those named `name`, or instance `id` of it. */
  info(name?: string, id?: string): Promise<QueuedIterator<ServiceInfo>>;
}
