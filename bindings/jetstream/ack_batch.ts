/**
 * natsjet's `AckBatch`: acks of messages, or of stored ack tokens, gathered
 * (e.g. until a checkpoint is durable) and sent together: in one flush, or
 * confirmed by the server and sorted into confirmed, unconfirmed and refused.
 */
import type { RawAckBatch, RawAckReport } from "../raw.js";
import { InvalidArgumentError } from "../errors.js";
import type { JetStreamClient } from "./client.js";
import { NatsJsMsg, ackKind, type AckKind, type JsMsg } from "./jsmsg.js";

/** How a confirmed commit ended, per delivery (ack token). */
export interface AckReport {
  /** The server applied the ack. */
  confirmed: string[];
  /** No answer in time: ambiguous (a closed consumer, a fresh leader), safe to send again. */
  unconfirmed: string[];
  /** The server answered with an error: the token and the reason. */
  refused: [token: string, reason: string][];
}

/** @internal The report of a confirmed commit, from wasm's (tokens one string each way, `\n` between). */
export function ackReport([confirmed, unconfirmed, refused]: RawAckReport): AckReport {
  return { confirmed: tokens(confirmed), unconfirmed: tokens(unconfirmed), refused };
}

function tokens(joined: string): string[] {
  return joined === "" ? [] : joined.split("\n");
}

/** Options of one ack added to an `AckBatch`. */
export interface AckOptions {
  /** With `nak`: redeliver after this many milliseconds. */
  delay?: number;
  /** With `term`: shown in the server's advisory. */
  reason?: string;
}

/** Options of `AckBatch.commit`. */
export interface CommitOptions {
  /** Send the acks as requests and report the server's answers. */
  confirm?: boolean;
  /** With `confirm`: milliseconds to wait for the answers (the JetStream timeout). */
  timeout?: number;
}

/** Options of an `AckBatch`. */
export interface AckBatchOptions {
  /**
   * The ack policy of the consumers whose messages the batch acks
   * (`explicit`): with `all`, only each consumer's highest `+ACK` is sent
   * (it acks everything below it, whichever worker got it: unsafe for
   * consumers shared by workers); with `none`, nothing is sent.
   */
  policy?: "explicit" | "all" | "none";
}

/**
 * natsjet: acks gathered and sent together (`js.ackBatch()`), of messages or
 * of ack tokens stored earlier, e.g. once a checkpoint is durable.
 */
export class AckBatch {
  readonly #raw: RawAckBatch;

  /** An empty batch, committed on the connection of `js`. */
  constructor(js: JetStreamClient, opts: AckBatchOptions = {}) {
    this.#raw = js.raw.ackBatch(opts.policy);
  }

  /** Acks gathered. */
  get length(): number {
    return this.#raw.length;
  }

  /**
   * Adds an ack (`kind`, default `ack`) of a message, which then refuses
   * any other final ack, or of an ack token (`msg.ackToken()`). A second
   * final ack of one delivery in a batch throws `INVALID_ARGUMENT`.
   */
  add(msg: JsMsg | string, kind: AckKind = "ack", opts: AckOptions = {}): void {
    const code = ackKind(kind);
    if (typeof msg === "string") this.#raw.addToken(msg, code, opts.delay, opts.reason);
    else if (msg instanceof NatsJsMsg) msg.addTo(this.#raw, code, opts.delay, opts.reason);
    else throw new InvalidArgumentError("AckBatch.add: expected a natsjet JsMsg or an ack token");
  }

  /**
   * Sends every ack and empties the batch. Without `confirm`, resolves once
   * the server has processed them (one flush; acks to a consumer that is
   * gone are dropped silently); with it, resolves with the server's answers.
   */
  commit(opts?: CommitOptions & { confirm?: false }): Promise<void>;
  commit(opts: CommitOptions & { confirm: true }): Promise<AckReport>;
  async commit(opts: CommitOptions = {}): Promise<void | AckReport> {
    if (!opts.confirm) return this.#raw.commit();
    return ackReport(await this.#raw.commitConfirmed(opts.timeout));
  }
}
