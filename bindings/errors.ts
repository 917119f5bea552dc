/**
 * The one error class of natsjet. Errors made in Rust take this class's
 * prototype (the entry modules register it with the wasm side), so every
 * error thrown or rejected by natsjet is a `NatsError` with a `code`.
 */
import type { ErrorCode } from "./raw.js";

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

  constructor(message: string, code: ErrorCode, details: NatsErrorDetails = {}) {
    super(message);
    this.name = "NatsError";
    this.code = code;
    this.status = details.status;
    this.errCode = details.errCode;
    this.description = details.description;
  }
}
