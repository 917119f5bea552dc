/**
 * natsjet's `CheckpointLedger`, as in the Rust API: for workers sharing one
 * durable consumer that ack only once a checkpoint has made their work
 * durable. Messages are held per epoch and kept alive with `+WPI` by the
 * connection's task (not by the worker's loop, which may be busy) until
 * their epoch commits, then acked in one confirmed batch. Set-ups that lose
 * or stall data are refused or reported when the ledger is made.
 */
import type { RawCheckpointLedger, RawLedgerWarning } from "../raw.js";
import { InvalidArgumentError } from "../errors.js";
import { ackReport, type AckReport } from "./ack_batch.js";
import type { Consumer } from "./consumer.js";
import { NatsJsMsg, type JsMsg } from "./jsmsg.js";

/** How the workers use the consumer, for the checks. */
export interface LedgerOptions {
  /** Workers sharing the durable consumer. */
  workers: number;
  /** Messages each worker pulls at a time. */
  batch: number;
  /** Milliseconds between checkpoints: the longest a message waits for its ack. */
  checkpointInterval: number;
}

/** A consumer setting that works but will hurt, and why. */
export interface LedgerWarning {
  /**
   * `MAX_ACK_PENDING_TOO_SMALL`: workers × batch exceeds the consumer's
   * `max_ack_pending`, so delivery stalls before a checkpoint;
   * `ACK_WAIT_SHORTER_THAN_CHECKPOINT`: without the ledger's `+WPI` (or
   * while disconnected) held messages would be redelivered.
   */
  code: RawLedgerWarning[0];
  message: string;
}

/** A held message that may be redelivered anyway: its `+WPI` could not go out before its ack deadline (disconnected, or a late commit). */
export interface LedgerEvent {
  type: "redeliveryRisk";
  /** The message's ack token. */
  token: string;
}

export class CheckpointLedger {
  readonly #raw: RawCheckpointLedger;

  /**
   * A ledger for the messages of `consumer` (a pull consumer from
   * `js.consumers.get`). Several workers on an AckAll or AckNone consumer
   * throw `INVALID_ARGUMENT`: AckAll moves the ack floor over other
   * workers' messages, AckNone never redelivers.
   */
  constructor(consumer: Consumer, opts: LedgerOptions) {
    this.#raw = consumer.raw.checkpointLedger(opts.workers, opts.batch, opts.checkpointInterval);
  }

  /** What the consumer's settings risk for this pattern (empty when they fit). */
  warnings(): LedgerWarning[] {
    return this.#raw.warnings().map(([code, message]) => ({ code, message }));
  }

  /**
   * Holds `msg` until `epoch` commits. The ledger then owns its ack:
   * acking it directly throws `ALREADY_ACKNOWLEDGED`; tracking it twice or
   * into an epoch already committed throws `INVALID_ARGUMENT`.
   */
  track(msg: JsMsg, epoch: number): void {
    if (!(msg instanceof NatsJsMsg)) {
      throw new InvalidArgumentError("CheckpointLedger.track: expected a natsjet JsMsg");
    }
    msg.trackIn(this.#raw, epoch);
  }

  /** Acks every message of epochs up to `epoch`, pipelined and confirmed by the server. */
  async commit(epoch: number): Promise<AckReport> {
    return ackReport(await this.#raw.commit(epoch));
  }

  /** Messages held. */
  get length(): number {
    return this.#raw.length;
  }

  isEmpty(): boolean {
    return this.length === 0;
  }

  /** The next warning that a held message may be redelivered, or `null`. */
  tryNextEvent(): LedgerEvent | null {
    const token = this.#raw.tryNextEvent();
    return token === undefined ? null : { type: "redeliveryRisk", token };
  }

  /** Stops keeping the held messages alive and forgets them; the server redelivers them after `ack_wait`. */
  close(): void {
    this.#raw.free();
  }
}
