/**
 * natsjet's `CheckpointLedger`, as in the Rust API: for workers sharing one
 * durable consumer that ack only once a checkpoint has made their work
 * durable. Messages are held per epoch and kept alive with `+WPI` by the
 * connection's task (not by the worker's loop, which may be busy) until
 * their epoch commits, then acked in one confirmed batch. Set-ups that lose
 * or stall data are refused or reported when the ledger is made.
 *
 * Exactly-once with many workers: save `snapshot(epoch)` with the engine's
 * own state in one transaction, then `commit(epoch)`; after a failure,
 * `restore` the states every worker saved in the last checkpoint and read
 * through `filter` (or `admit`), so that redeliveries of work already
 * applied are acked instead of applied again; `abort` an epoch whose
 * checkpoint failed.
 */
import type { RawCheckpointLedger, RawLedgerWarning } from "../raw.js";
import { InvalidArgumentError } from "../errors.js";
import { ackReport, type AckReport } from "./ack_batch.js";
import type { Consumer } from "./consumer.js";
import type { ConsumerConfig } from "../raw.js";
import { ConsumerMessages } from "./consumer_messages.js";
import { NatsJsMsg, type JsMsg } from "./jsmsg.js";

/** How the workers use the consumer, for the checks. */
export interface LedgerOptions {
  /** Workers sharing the durable consumer. */
  workers: number;
  /** Messages each worker pulls at a time. */
  batch: number;
  /** Milliseconds between checkpoints: the longest a message waits for its ack. */
  checkpointInterval: number;
  /**
   * The config the program would have made the durable with (as given to
   * `jsm.consumers.add`). Opening an existing durable keeps the server's
   * settings: each one the workers depend on (`ack_wait`,
   * `max_ack_pending`, `max_deliver`, `backoff`, the filter) that differs
   * from one set here is a `CONFIG_DIFFERS` warning.
   */
  expecting?: Partial<ConsumerConfig>;
}

/** A consumer setting that works but will hurt, and why. */
export interface LedgerWarning {
  /**
   * `MAX_ACK_PENDING_TOO_SMALL`: workers × batch exceeds the consumer's
   * `max_ack_pending`, so delivery stalls before a checkpoint;
   * `ACK_WAIT_SHORTER_THAN_CHECKPOINT`: without the ledger's `+WPI` (or
   * while disconnected) held messages would be redelivered;
   * `MAX_DELIVER_FINITE`: a message whose epochs keep failing is dropped
   * after `max_deliver` deliveries; `MAX_WAITING_BELOW_WORKERS`: some
   * workers' pulls are refused; `CONFIG_DIFFERS`: the existing durable has
   * another setting than the program asked for (see `expecting`).
   */
  code: RawLedgerWarning[0];
  /** What is wrong and what to change, for people. */
  message: string;
}

/**
 * `redeliveryRisk`: a held message may be redelivered anyway, its `+WPI`
 * could not go out before its ack deadline (disconnected, or a late commit);
 * `redelivered`: a redelivery that no restored state covers and this ledger
 * did not nak (the worker that had it crashed, nak'd it, or still holds it).
 */
export interface LedgerEvent {
  /** Which event this is (see above). */
  type: "redeliveryRisk" | "redelivered";
  /** The message's ack token. */
  token: string;
}

/**
 * What a checkpoint saves of a ledger (JSON-able; the Rust API's
 * `LedgerState`, in the same form): per consumer, the stream sequences
 * whose work the checkpoint holds and whose acks the server has not
 * confirmed. Written as version 2, `runs`: the first sequence and how many
 * follow it in its range, then for each next range its distance from the
 * end of the one before and how many follow its first (`[1, 9, 5, 0]` is
 * 1 to 10 and 15). Version 1's inclusive `[first, last]` `ranges` are read too.
 */
export interface LedgerState {
  /** The format's version: 2 (`runs`) when written; 1 (`ranges`) is read too. */
  version: number;
  /** Each consumer's sequences. */
  consumers: LedgerConsumerState[];
}

/** One consumer's part of a {@link LedgerState}: `runs` (version 2) or `ranges` (version 1). */
export type LedgerConsumerState = {
  /** The consumer's stream. */
  stream: string;
  /** The consumer's name. */
  consumer: string;
} & (
  | {
      /** Version 2: the sequences as runs (see {@link LedgerState}). */
      runs: number[];
      /** Not with `runs`. */
      ranges?: never;
    }
  | {
      /** Version 1: the sequences as inclusive `[first, last]` ranges. */
      ranges: [number, number][];
      /** Not with `ranges`. */
      runs?: never;
    }
);

/** What a ledger has done for exactly-once since it was made. */
export interface LedgerCounts {
  /** Redeliveries of applied work, acked instead of handed out. */
  skipped: number;
  /** Messages nak'd because their epoch was aborted. */
  aborted: number;
  /** Held messages reported at risk of a second delivery. */
  atRisk: number;
  /** Redeliveries admitted that neither a restore nor an abort explains. */
  redelivered: number;
}

/**
 * natsjet: holds the messages of workers sharing one durable consumer until
 * their checkpoint commits, then acks them in one confirmed batch; with
 * `snapshot`/`restore`, exactly-once processing (docs/exactly-once.md).
 */
export class CheckpointLedger {
  readonly #raw: RawCheckpointLedger;

  /**
   * A ledger for the messages of `consumer` (a pull consumer from
   * `js.consumers.get`). Several workers on an AckAll or AckNone consumer
   * throw `INVALID_ARGUMENT`: AckAll moves the ack floor over other
   * workers' messages, AckNone never redelivers.
   */
  constructor(consumer: Consumer, opts: LedgerOptions) {
    const expecting = opts.expecting === undefined ? undefined : JSON.stringify({ config: opts.expecting });
    this.#raw = consumer.raw.checkpointLedger(opts.workers, opts.batch, opts.checkpointInterval, expecting);
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
    natsjetMsg(msg, "track").trackIn(this.#raw, epoch);
  }

  /**
   * Whether to process `msg`: `false` for a redelivery of work already
   * applied (restored, or committed here and not yet confirmed), which the
   * ledger then owns and acks with the next `commit`.
   */
  admit(msg: JsMsg): boolean {
    return natsjetMsg(msg, "admit").admitIn(this.#raw);
  }

  /** `messages` without the redeliveries of applied work (`admit` on each). */
  filter(messages: AsyncIterable<JsMsg>): AsyncIterable<JsMsg> {
    // natsjet's messages: one admit per batch read from wasm, in it.
    if (messages instanceof ConsumerMessages)
      return messages.admitted((batch, from) => this.#raw.admitAll(batch.deliveries, from));
    // An iterator by hand, not an async generator: this runs for every
    // message, and a generator's resumption costs more than the admit.
    return {
      [Symbol.asyncIterator]: () => {
        const inner = messages[Symbol.asyncIterator]();
        return {
          next: async (): Promise<IteratorResult<JsMsg>> => {
            for (;;) {
              const next = await inner.next();
              if (next.done || this.admit(next.value)) return next;
            }
          },
          return: async (value?: unknown): Promise<IteratorResult<JsMsg>> =>
            (await inner.return?.(value)) ?? { done: true, value: undefined },
        };
      },
    };
  }

  /**
   * What the checkpoint of `epoch` must save, in the same transaction as the
   * engine's state for it. Throws `AT_RISK` when a message of the epoch may
   * have reached another worker: `abort` the epoch instead.
   */
  snapshot(epoch: number): LedgerState {
    // Runs as floats, not JSON: thousands of ranges each checkpoint. Copied
    // by a plain loop (`Array.from` on a typed array is several times slower).
    const raw = this.#raw.snapshot(epoch);
    const consumers: LedgerConsumerState[] = [];
    for (let i = 1; i + 2 < raw.length; i += 3) {
      const floats = raw[i + 2] as Float64Array;
      const runs = new Array<number>(floats.length);
      for (let j = 0; j < floats.length; j++) runs[j] = floats[j]!;
      consumers.push({ stream: raw[i] as string, consumer: raw[i + 1] as string, runs });
    }
    return { version: raw[0], consumers };
  }

  /**
   * Takes the states every worker saved in the last checkpoint (all of
   * them, whatever the worker count now). Call it before the first message.
   */
  async restore(states: LedgerState[]): Promise<void> {
    // As JSON text: read in the wasm by its small JSON reader.
    await this.#raw.restore(states.map((state) => JSON.stringify(state)));
  }

  /**
   * Gives up `epoch` and every later one (their checkpoint failed or a
   * message was at risk): naks their messages, so the server redelivers
   * them now rather than after `ack_wait`. Resolves to how many.
   */
  abort(epoch: number): Promise<number> {
    return this.#raw.abort(epoch);
  }

  /** Skipped, aborted, at-risk and unexplained redelivered messages so far. */
  counts(): LedgerCounts {
    const [skipped, aborted, atRisk, redelivered] = this.#raw.counts();
    return { skipped, aborted, atRisk, redelivered };
  }

  /** Acks every message of epochs up to `epoch` (and the skipped redeliveries), confirmed per consumer by the server's answer to the last of its acks. */
  async commit(epoch: number): Promise<AckReport> {
    return ackReport(await this.#raw.commit(epoch));
  }

  /** Messages held. */
  get length(): number {
    return this.#raw.length;
  }

  /** Whether no message is held. */
  isEmpty(): boolean {
    return this.length === 0;
  }

  /** The next event (a held message at risk, an unexplained redelivery), or `null`. */
  tryNextEvent(): LedgerEvent | null {
    const event = this.#raw.tryNextEvent();
    return event === undefined ? null : { type: event[0], token: event[1] };
  }

  /** Stops keeping the held messages alive and forgets them; the server redelivers them after `ack_wait`. */
  close(): void {
    this.#raw.free();
  }
}

/**
 * A `Nats-Msg-Id` for output `index` of `msg`, the same on every delivery
 * (`<stream>:<stream sequence>:<index>`, as the Rust API's `output_msg_id`).
 * A processor that publishes results sets it, so a republish after a crash
 * is dropped by the output stream's duplicate window (2 minutes by default;
 * a slower recovery can store twice).
 */
export function outputMsgId(msg: JsMsg, index = 0): string {
  return `${msg.info.stream}:${msg.info.streamSequence}:${index}`;
}

function natsjetMsg(msg: JsMsg, call: string): NatsJsMsg {
  if (msg instanceof NatsJsMsg) return msg;
  throw new InvalidArgumentError(`CheckpointLedger.${call}: expected a natsjet JsMsg`);
}
