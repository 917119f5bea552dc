/**
 * natsjet's errors are nats.js 3.4's: the same classes, `name`s, messages,
 * `code` and `status` (only where nats.js has them: the API error's
 * `err_code` and HTTP-like code, a status error's code) and `instanceof`
 * relations; every one is also a `NatsError` with natsjet's string `kind`
 * to switch on. Errors made in Rust take these prototypes; src/wasm/error.rs
 * picks the class and sets the fields declared here.
 */
import type { ApiError, ErrorClasses, ErrorKind } from "./raw_core.js";

export type { ApiError, ErrorKind };

/** Every error natsjet throws or rejects with (nats.js has no common base). Switch on `kind`; `message` is for people. */
export class NatsError extends Error {
  /** natsjet's kind of error, one for each of the Rust API's `Error` variants. */
  readonly kind: ErrorKind;

  constructor(message: string, kind: ErrorKind, options?: ErrorOptions) {
    super(message, options);
    this.kind = kind;
  }
}

/** A subject or queue group the server would refuse (`INVALID_SUBJECT`). */
export class InvalidSubjectError extends NatsError {
  constructor(subject: string, options?: ErrorOptions) {
    super(`illegal subject: '${subject}'`, "INVALID_SUBJECT", options);
  }
}

/** An argument or option natsjet cannot accept (`INVALID_ARGUMENT`, `PAYLOAD_TOO_LARGE`). */
export class InvalidArgumentError extends NatsError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, "INVALID_ARGUMENT", options);
  }

  /** nats.js's form: `'property' message` (several properties: `'a','b' message`). */
  static format(property: string | string[], message: string, options?: ErrorOptions): InvalidArgumentError {
    const names = (Array.isArray(property) ? property : [property]).map((p) => `'${p}'`).join(",");
    return new InvalidArgumentError(`${names} ${message}`, options);
  }
}

/**
 * A call the object's state or kind does not allow: a second final ack
 * (`ALREADY_ACKNOWLEDGED`); iterating a subscription that has a callback,
 * reconnecting while draining, a second reader of an ordered consumer,
 * pulling from a push consumer (`INVALID_ARGUMENT`, natsjet's `ApiMisuse`).
 */
export class InvalidOperationError extends NatsError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, "INVALID_ARGUMENT", options);
  }
}

/** The server sent something that is not NATS protocol, or an `-ERR` of no other class (`PROTOCOL`, `STALE_CONNECTION`…). */
export class ProtocolError extends NatsError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, "PROTOCOL", options);
  }
}

/** The server refused the credentials (`AUTHORIZATION_VIOLATION`, `AUTHENTICATION_REVOKED`). */
export class AuthorizationError extends NatsError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, "AUTHORIZATION_VIOLATION", options);
  }
}

/** The user's credentials expired (`AUTHENTICATION_EXPIRED`). */
export class UserAuthenticationExpiredError extends NatsError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, "AUTHENTICATION_EXPIRED", options);
  }
}

/** A publish or subscription the user may not make (`PERMISSIONS_VIOLATION`); the connection stays up. */
export class PermissionViolationError extends NatsError {
  /** What was refused: a publish or a subscription. */
  readonly operation: "publish" | "subscription";
  /** The subject it was refused on. */
  readonly subject: string;
  /** The subscription's queue group, when it had one. */
  readonly queue?: string;

  constructor(
    message: string,
    operation: "publish" | "subscription",
    subject: string,
    queue?: string,
    options?: ErrorOptions,
  ) {
    super(message, "PERMISSIONS_VIOLATION", options);
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
  /** `kind` is natsjet's: which of the failures above. */
  constructor(message: string, options?: ErrorOptions, kind: "IO" | "TLS" | "CREDENTIALS" = "IO") {
    super(message, kind, options);
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

/**
 * A request that failed: the connection dropped while it was in flight
 * (`DISCONNECTED`), or nobody listens on its subject (`NO_RESPONDERS`, the
 * `cause` a `NoRespondersError`).
 */
export class RequestError extends NatsError {
  constructor(message = "", options?: ErrorOptions, kind: ErrorKind = "DISCONNECTED") {
    super(message, kind, options);
  }

  /** Whether nobody listens on the subject: the cause is a `NoRespondersError`. */
  isNoResponders(): boolean {
    return this.cause instanceof NoRespondersError;
  }
}

/**
 * Nobody listens on `subject` (`NO_RESPONDERS`): the cause of a
 * `RequestError`, or what the replies of `requestMany` end with. `name` is
 * nats.js's: "NoResponders".
 */
export class NoRespondersError extends NatsError {
  /** The subject the request went to. */
  readonly subject: string;

  constructor(subject: string, options?: ErrorOptions) {
    super(`no responders: '${subject}'`, "NO_RESPONDERS", options);
    this.subject = subject;
  }
}

/** An operation did not complete in time (`TIMEOUT`). */
export class TimeoutError extends NatsError {
  constructor(options?: ErrorOptions) {
    super("timeout", "TIMEOUT", options);
  }
}

/** A JetStream error that is not an API reply (nats.js's base of `JetStreamStatusError`). */
export class JetStreamError extends NatsError {
  constructor(message: string, options?: ErrorOptions, kind: ErrorKind = "JETSTREAM") {
    super(message, kind, options);
  }
}

/** A status that ended a pull (`CONSUMER_STATUS`): `code` is the status (409…), `message` its description. */
export class JetStreamStatusError extends JetStreamError {
  /** The status code, e.g. 409 (consumer deleted, leadership change…). */
  readonly code: number;

  constructor(message: string, code: number, options?: ErrorOptions) {
    super(message, options, "CONSUMER_STATUS");
    this.code = code;
  }
}

/**
 * The JetStream API answered with an error (`JETSTREAM`): `code` is its
 * `err_code` (compare with `JetStreamApiCodes`), `status` its HTTP-like
 * `code` (400, 404…), `message` its description.
 */
export class JetStreamApiError extends NatsError {
  /** The server's `err_code`, e.g. 10059 (compare with {@link JetStreamApiCodes}). */
  readonly code: number;
  /** The HTTP-like status of the error (400, 404, 503…). */
  readonly status: number;

  constructor(jsErr: ApiError, options?: ErrorOptions) {
    super(jsErr.description, "JETSTREAM", options);
    this.code = jsErr.err_code;
    this.status = jsErr.code;
  }

  /** The server's error as it sent it. */
  apiError(): ApiError {
    return { code: this.status, err_code: this.code, description: this.message };
  }
}

/** The API error `err_code` 10014. */
export class ConsumerNotFoundError extends JetStreamApiError {}

/** The API error `err_code` 10059. */
export class StreamNotFoundError extends JetStreamApiError {
  /** nats.js's: a not-found error the client found, not the server. */
  static fromMessage(message: string): StreamNotFoundError {
    return new StreamNotFoundError({ code: 404, err_code: JetStreamApiCodes.StreamNotFound, description: message });
  }
}

/**
 * JetStream is off: the API's error 10039 (or 10076), which is the
 * `cause`, or no responders to a JetStream call (`message` "jetstream is not
 * enabled", the `cause` a `RequestError` caused by a `NoRespondersError`).
 */
export class JetStreamNotEnabled extends NatsError {
  constructor(message: string, options?: ErrorOptions, kind: ErrorKind = "JETSTREAM") {
    super(message, kind, options);
  }
}

/**
 * nats.js's refusal of a stream or consumer name before asking the server.
 * natsjet never throws it: its Rust rules refuse such names with an
 * `InvalidArgumentError`.
 */
export class InvalidNameError extends NatsError {
  constructor(message = "", options?: ErrorOptions) {
    super(message, "INVALID_ARGUMENT", options);
  }
}

/** The `err_code`s nats.js names. */
export const JetStreamApiCodes = {
  /** There is no such consumer. */
  ConsumerNotFound: 10014,
  /** There is no such stream. */
  StreamNotFound: 10059,
  /** JetStream is not enabled for the account. */
  JetStreamNotEnabledForAccount: 10039,
  /** A publish's expected last sequence did not match. */
  StreamWrongLastSequence: 10071,
  /** A publish's expected last sequence did not match, the error's text naming no sequence (replicated streams). */
  StreamWrongLastSequenceUnknown: 10164,
  /** No stored message matches. */
  NoMessageFound: 10037,
} as const;
/** One of the `err_code`s in {@link JetStreamApiCodes}. */
export type JetStreamApiCodes = (typeof JetStreamApiCodes)[keyof typeof JetStreamApiCodes];

/** Whether `err` is the API's "no message found" (`err_code` 10037). */
export function isMessageNotFound(err: Error): boolean {
  return err instanceof JetStreamApiError && err.code === JetStreamApiCodes.NoMessageFound;
}

/** nats-core's `errors`: its error classes by name. */
export const errors = {
  /** See {@link AuthorizationError}. */
  AuthorizationError,
  /** See {@link ClosedConnectionError}. */
  ClosedConnectionError,
  /** See {@link ConnectionError}. */
  ConnectionError,
  /** See {@link DrainingConnectionError}. */
  DrainingConnectionError,
  /** See {@link InvalidArgumentError}. */
  InvalidArgumentError,
  /** See {@link InvalidOperationError}. */
  InvalidOperationError,
  /** See {@link InvalidSubjectError}. */
  InvalidSubjectError,
  /** See {@link NoRespondersError}. */
  NoRespondersError,
  /** See {@link PermissionViolationError}. */
  PermissionViolationError,
  /** See {@link ProtocolError}. */
  ProtocolError,
  /** See {@link RequestError}. */
  RequestError,
  /** See {@link TimeoutError}. */
  TimeoutError,
  /** See {@link UserAuthenticationExpiredError}. */
  UserAuthenticationExpiredError,
};

/** jetstream's `jserrors`: its error classes by name. */
export const jserrors = {
  /** See {@link InvalidNameError}. */
  InvalidNameError,
  /** See {@link ConsumerNotFoundError}. */
  ConsumerNotFoundError,
  /** See {@link StreamNotFoundError}. */
  StreamNotFoundError,
  /** See {@link JetStreamError}. */
  JetStreamError,
  /** See {@link JetStreamApiError}. */
  JetStreamApiError,
  /** See {@link JetStreamNotEnabled}. */
  JetStreamNotEnabled,
};

/** @internal The classes the wasm side gives its errors, by name (see src/wasm/error.rs). */
export const errorClasses: ErrorClasses = {
  ...errors,
  ...jserrors,
  NatsError,
  JetStreamStatusError,
};

// Each class's `name` is nats.js's: its class name, spelled out (bundlers
// may rename classes), but "NoResponders"; on the prototype, so errors made
// in Rust have it too.
for (const [name, Class] of Object.entries(errorClasses)) {
  const value = Class === NoRespondersError ? "NoResponders" : name;
  Object.defineProperty(Class.prototype, "name", { value, writable: true, configurable: true });
}
