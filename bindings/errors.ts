/**
 * natsjet's errors: every one is a `NatsError` with a string `code`, and an
 * instance of nats.js v3's class for it (a subclass, under nats.js's name).
 * Errors made in Rust take these prototypes; src/wasm/error.rs picks the
 * class. `name` stays "NatsError"; nats.js's numeric `code` is `errCode`
 * (`JetStreamApiError`) or `status` (`JetStreamStatusError`) here.
 */
import type { ApiError, ErrorClasses, ErrorCode } from "./raw.js";

export type { ErrorCode };

/** The server's numbers and text, where it gave them. */
export interface NatsErrorDetails {
  /** Status code: 503 for no responders, the JetStream API's 400/404/503… */
  status?: number;
  /** JetStream's fine-grained error number (e.g. 10059 stream not found). */
  errCode?: number;
  /** The server's description of the error. */
  description?: string;
}

/** Every error natsjet throws or rejects with. Switch on `code`; `message` is for people. */
export class NatsError extends Error implements NatsErrorDetails {
  readonly code: ErrorCode;
  readonly status?: number;
  readonly errCode?: number;
  readonly description?: string;

  constructor(message: string, code: ErrorCode, details: NatsErrorDetails = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = "NatsError";
    this.code = code;
    this.status = details.status;
    this.errCode = details.errCode;
    this.description = details.description;
  }
}

/** A subject or queue group the server would refuse (`INVALID_SUBJECT`). */
export class InvalidSubjectError extends NatsError {
  constructor(subject: string, options?: ErrorOptions) {
    super(`illegal subject: '${subject}'`, "INVALID_SUBJECT", {}, options);
  }
}

/** An argument or option natsjet cannot accept (`INVALID_ARGUMENT`, `PAYLOAD_TOO_LARGE`). */
export class InvalidArgumentError extends NatsError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, "INVALID_ARGUMENT", {}, options);
  }
}

/**
 * A call the object's state or kind does not allow: a second final ack
 * (`ALREADY_ACKNOWLEDGED`); iterating a subscription that has a callback,
 * reconnecting while draining, a second reader of an ordered consumer,
 * pulling from a push consumer (`INVALID_ARGUMENT`, natsjet's `ApiMisuse`).
 * An `InvalidArgumentError` too, as these were before they had a class of
 * their own, so `instanceof InvalidArgumentError` still catches them.
 */
export class InvalidOperationError extends InvalidArgumentError {}

/** The server sent something that is not NATS protocol, or an `-ERR` of no other class (`PROTOCOL`, `STALE_CONNECTION`…). */
export class ProtocolError extends NatsError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, "PROTOCOL", {}, options);
  }
}

/** The server refused the credentials (`AUTHORIZATION_VIOLATION`, `AUTHENTICATION_REVOKED`). */
export class AuthorizationError extends NatsError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, "AUTHORIZATION_VIOLATION", {}, options);
  }
}

/** The user's credentials expired (`AUTHENTICATION_EXPIRED`). */
export class UserAuthenticationExpiredError extends NatsError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, "AUTHENTICATION_EXPIRED", {}, options);
  }
}

/** A publish or subscription the user may not make (`PERMISSIONS_VIOLATION`); the connection stays up. */
export class PermissionViolationError extends NatsError {
  readonly operation: "publish" | "subscription";
  readonly subject: string;
  readonly queue?: string;

  constructor(
    message: string,
    operation: "publish" | "subscription",
    subject: string,
    queue?: string,
    options?: ErrorOptions,
  ) {
    super(message, "PERMISSIONS_VIOLATION", {}, options);
    this.operation = operation;
    this.subject = subject;
    this.queue = queue;
  }
}

/**
 * The connection failed or could not be made (`IO`, `TLS`, `CREDENTIALS`), or
 * cannot take a publish now (`RECONNECT_BUFFER_FULL`, `OUTGOING_BUFFER_FULL`).
 */
export class ConnectionError extends NatsError {
  /** `code` is natsjet's: which of the failures above. */
  constructor(message: string, options?: ErrorOptions, code: "IO" | "TLS" | "CREDENTIALS" = "IO") {
    super(message, code, {}, options);
  }
}

/** The connection was closed (`CLOSED`). */
export class ClosedConnectionError extends NatsError {
  constructor() {
    super("closed connection", "CLOSED");
  }
}

/**
 * nats.js's refusal of new work while draining. natsjet never throws it:
 * it accepts publishes while draining and flushes them before closing.
 */
export class DrainingConnectionError extends NatsError {
  constructor() {
    super("connection draining", "CLOSED");
  }
}

/** A request that failed: the connection dropped while it was in flight (`DISCONNECTED`), or no responders. */
export class RequestError extends NatsError {
  constructor(message = "", options?: ErrorOptions, code: ErrorCode = "DISCONNECTED") {
    super(message, code, {}, options);
  }

  /** Whether nobody listens on the subject (as nats.js: the error or its cause is a `NoRespondersError`). */
  isNoResponders(): boolean {
    return this instanceof NoRespondersError || this.cause instanceof NoRespondersError;
  }
}

/**
 * Nobody listens on the subject (`NO_RESPONDERS`, status 503). A
 * `RequestError` whose `cause` is a `NoRespondersError` too, so both
 * nats.js idioms hold. `subject` is the request's ("" where natsjet does
 * not know it: JetStream calls and pulls).
 */
export class NoRespondersError extends RequestError {
  readonly subject: string;

  constructor(subject: string, options?: ErrorOptions) {
    super(`no responders: '${subject}'`, options, "NO_RESPONDERS");
    this.subject = subject;
  }
}

/** An operation did not complete in time (`TIMEOUT`). */
export class TimeoutError extends NatsError {
  constructor(options?: ErrorOptions) {
    super("timeout", "TIMEOUT", {}, options);
  }
}

/** A JetStream error that is not an API reply (nats.js's base of `JetStreamStatusError`). */
export class JetStreamError extends NatsError {
  constructor(message: string, options?: ErrorOptions, code: ErrorCode = "JETSTREAM", details?: NatsErrorDetails) {
    super(message, code, details, options);
  }
}

/** A status that ended a pull (`CONSUMER_STATUS`); nats.js's numeric `code` is `status` (409…). */
export class JetStreamStatusError extends JetStreamError {
  constructor(message: string, status: number, options?: ErrorOptions) {
    super(message, options, "CONSUMER_STATUS", { status, description: message });
  }
}

const apiDetails = (e: ApiError): NatsErrorDetails => ({
  status: e.code,
  errCode: e.err_code,
  description: e.description,
});

/**
 * The JetStream API answered with an error (`JETSTREAM`): `status` is its
 * `code` (400, 404…), `errCode` its `err_code`; nats.js's numeric `code` is
 * `errCode` here.
 */
export class JetStreamApiError extends NatsError {
  constructor(jsErr: ApiError, options?: ErrorOptions) {
    super(jsErr.description, "JETSTREAM", apiDetails(jsErr), options);
  }

  /** The server's error as it sent it, as nats.js. */
  apiError(): ApiError {
    return { code: this.status ?? 0, err_code: this.errCode ?? 0, description: this.description ?? "" };
  }
}

/** The API error `err_code` 10014. */
export class ConsumerNotFoundError extends JetStreamApiError {}

/** The API error `err_code` 10059. */
export class StreamNotFoundError extends JetStreamApiError {}

/** JetStream is not enabled for the account (`JETSTREAM`, `errCode` 10039 or 10076). */
export class JetStreamNotEnabled extends NatsError {
  constructor(message: string, options?: ErrorOptions, details?: NatsErrorDetails) {
    super(message, "JETSTREAM", details, options);
  }
}

/** The `err_code`s nats.js names. */
export const JetStreamApiCodes = {
  ConsumerNotFound: 10014,
  StreamNotFound: 10059,
  JetStreamNotEnabledForAccount: 10039,
  StreamWrongLastSequence: 10071,
  StreamWrongLastSequenceUnknown: 10164,
  NoMessageFound: 10037,
} as const;
export type JetStreamApiCodes = (typeof JetStreamApiCodes)[keyof typeof JetStreamApiCodes];

/** Whether `err` is the API's "no message found" (`err_code` 10037). */
export function isMessageNotFound(err: Error): boolean {
  return err instanceof JetStreamApiError && err.errCode === JetStreamApiCodes.NoMessageFound;
}

/** @internal The classes the wasm side gives its errors, by name (see src/wasm/error.rs). */
export const errorClasses: ErrorClasses = {
  NatsError,
  InvalidSubjectError,
  InvalidArgumentError,
  InvalidOperationError,
  ProtocolError,
  AuthorizationError,
  UserAuthenticationExpiredError,
  PermissionViolationError,
  ConnectionError,
  RequestError,
  NoRespondersError,
  TimeoutError,
  ClosedConnectionError,
  JetStreamApiError,
  StreamNotFoundError,
  ConsumerNotFoundError,
  JetStreamNotEnabled,
  JetStreamStatusError,
};
