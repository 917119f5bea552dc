/**
 * `ConsumerMessages`, shaped like nats.js's: the messages of a `fetch` or
 * `consume` as an `AsyncIterable<JsMsg>`, read from wasm a batch at a time,
 * and its consumer events as `status()`. The pulling, heartbeats and
 * re-pulls run in Rust, in the connection's task, whatever the reader's pace.
 */
import type { RawConsumerEvent, RawConsumerMessages } from "../raw.js";
import { NatsError } from "../errors.js";
import type { Publisher } from "../msg.js";
import { unpackDelivered, type JsMsg } from "./jsmsg.js";

/** Why a fetch ended (`fetch_done`). */
export type FetchEnd =
  | "batch_complete"
  | "max_bytes_reached"
  | "no_messages"
  | "expired"
  | "timed_out"
  | "heartbeats_missed"
  | "status"
  | "stopped";

/** A consumer event (nats.js: `ConsumerNotification`); none of them ends the messages by itself. */
export type ConsumerStatus =
  /** `count` heartbeat intervals passed in silence; natsjet pulls again by itself. */
  | { type: "heartbeats_missed"; count: number }
  /** Pending pulls were void (leader change, reconnect, expiry); a new pull went out. */
  | { type: "reset"; reason: "leadership_change" | "reconnected" | "pulls_expired" }
  /** A status worth knowing, e.g. 409 `Exceeded MaxWaiting`. */
  | { type: "warning"; code: number; description: string }
  /** The consumer cannot serve pulls (409 `Consumer Deleted`…): the messages end with this error. */
  | { type: "terminal"; code: number; description: string }
  /** This client holds the pin of a pinned-client priority group. */
  | { type: "pinned"; id: string }
  /** The pin id was stale (423) and was dropped. */
  | { type: "pin_id_mismatch" }
  /** A fetch ended; `code` and `description` come with `reason: "status"`. */
  | { type: "fetch_done"; reason: FetchEnd; code?: number; description?: string }
  /** After `stop()`, every pull has ended. */
  | { type: "drained" };

/** Messages taken from wasm per crossing, at most. */
const BATCH = 1024;

export class ConsumerMessages implements AsyncIterable<JsMsg> {
  readonly #raw: RawConsumerMessages;
  readonly #publisher: Publisher;
  /** The last batch read; the next read waits for it (one read at a time). */
  #reading: Promise<JsMsg[] | null> = Promise.resolve([]);
  #processed = 0;
  #done = false;
  #watched = false;
  #resolveClosed!: (error: NatsError | undefined) => void;
  readonly #closed: Promise<NatsError | undefined> = new Promise((resolve) => (this.#resolveClosed = resolve));

  /** Made by `Consumer.fetch` and `Consumer.consume`. */
  constructor(raw: RawConsumerMessages, publisher: Publisher) {
    this.#raw = raw;
    this.#publisher = publisher;
  }

  /** Messages handed to the iterator so far. */
  getProcessed(): number {
    return this.#processed;
  }

  /**
   * Stops pulling. Messages already received are still delivered, then the
   * iteration ends. Breaking out of a `for await` loop stops too.
   */
  stop(): void {
    if (!this.#done) this.#raw.stop();
  }

  /**
   * Stops pulling and resolves once the server has every ack sent so far.
   * Messages already received are still delivered to the iterator.
   */
  async close(): Promise<void> {
    if (!this.#done) await this.#raw.drain();
  }

  /** Resolves when the iteration ended: with the error that ended it, if any. */
  closed(): Promise<void | NatsError> {
    return this.#closed;
  }

  /** Consumer events until the messages end. One `status()` iterator at a time. */
  async *status(): AsyncIterable<ConsumerStatus> {
    if (this.#watched) throw new NatsError("status() is already being iterated", "INVALID_ARGUMENT");
    this.#watched = true;
    try {
      for (let e = await this.#raw.nextEvent(); e; e = await this.#raw.nextEvent()) yield consumerStatus(e);
    } finally {
      this.#watched = false;
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<JsMsg> {
    try {
      for (let batch = await this.#next(); batch; batch = await this.#next()) {
        for (const msg of batch) {
          this.#processed++;
          yield msg;
        }
      }
    } finally {
      // Left early (break, return, throw): nothing more will be read.
      this.stop();
      this.#end(undefined);
    }
  }

  /** The next batch, `null` once ended; reads are chained so only one is pending in wasm. */
  #next(): Promise<JsMsg[] | null> {
    const read = () => this.#read();
    this.#reading = this.#reading.then(read, read);
    return this.#reading;
  }

  async #read(): Promise<JsMsg[] | null> {
    if (this.#done) return null;
    try {
      const delivered = await this.#raw.nextBatch(BATCH);
      if (delivered) return unpackDelivered(delivered, this.#publisher);
      this.#end(undefined);
      return null;
    } catch (e) {
      this.#end(e as NatsError);
      throw e;
    }
  }

  #end(error: NatsError | undefined): void {
    if (this.#done) return;
    this.#done = true;
    this.#resolveClosed(error);
  }
}

function consumerStatus([type, value, text]: RawConsumerEvent): ConsumerStatus {
  const code = value ?? 0;
  const description = text ?? "";
  switch (type) {
    case "heartbeats_missed":
      return { type, count: code };
    case "reset":
      return { type, reason: text as "leadership_change" | "reconnected" | "pulls_expired" };
    case "warning":
    case "terminal":
      return { type, code, description };
    case "pinned":
      return { type, id: description };
    case "fetch_done":
      return value === undefined ? { type, reason: text as FetchEnd } : { type, reason: "status", code, description };
    default:
      return { type: type as "pin_id_mismatch" | "drained" };
  }
}
