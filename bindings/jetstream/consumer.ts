/**
 * Pull consumers shaped like nats.js's `Consumer` (`js.consumers.get`):
 * `fetch` one batch, `next` one message, `consume` continuously.
 */
import type { ConsumeOptions as RawConsumeOptions, ConsumerInfo, FetchOptions, RawConsumer, RawJetStream } from "../raw.js";
import { parseReply, request, requestText } from "./api.js";
import { ConsumerMessages, type ConsumerCallbackFn } from "./consumer_messages.js";
import { DeliveredBatch, type JsMsg } from "./jsmsg.js";

export type { FetchOptions };

/** Options of `consume`, as nats.js's; durations in milliseconds. Set `max_messages` or `max_bytes`, not both. */
export interface ConsumeOptions extends RawConsumeOptions {
  /**
   * Messages go to this function, in order, instead of to an iterator (which
   * then cannot be used). It cannot be async; a throw stops the messages,
   * and `closed()` resolves with what was thrown.
   */
  callback?: ConsumerCallbackFn;
}

export interface NextOptions {
  /** Milliseconds to wait for a message (30000). */
  expires?: number;
}

export class Consumer {
  readonly #raw: RawConsumer;
  readonly #js: RawJetStream;
  #info: ConsumerInfo;

  /** Made by `js.consumers.get`. */
  constructor(raw: RawConsumer, js: RawJetStream, info: ConsumerInfo) {
    this.#raw = raw;
    this.#js = js;
    this.#info = info;
  }

  /** @internal The wasm consumer, for `CheckpointLedger`. */
  get raw(): RawConsumer {
    return this.#raw;
  }

  /** Always true: natsjet's consumers are pull consumers (nats.js's `ConsumerKind`). */
  isPullConsumer(): true {
    return true;
  }

  /** Always false: natsjet has no push consumers. */
  isPushConsumer(): false {
    return false;
  }

  /** Fresh info from the server, or (`cached`) the info as of the last call. */
  async info(cached = false): Promise<ConsumerInfo> {
    if (!cached) {
      this.#info = await request(this.#js, "CONSUMER.INFO", this.#info.stream_name, this.#info.name);
    }
    return this.#info;
  }

  /** Deletes the consumer on the server. */
  async delete(): Promise<boolean> {
    const { stream_name, name } = this.#info;
    return (await request<{ success: boolean }>(this.#js, "CONSUMER.DELETE", stream_name, name)).success;
  }

  /** One batch: iterating ends after `max_messages` (100), `max_bytes` or `expires` (30 s). */
  async fetch(opts?: FetchOptions): Promise<ConsumerMessages> {
    return new ConsumerMessages(this.#raw.fetch(opts));
  }

  /** The next message, or `null` if none came within `expires`. */
  async next(opts: NextOptions = {}): Promise<JsMsg | null> {
    const delivered = await this.#raw.next(opts.expires);
    return delivered && new DeliveredBatch(delivered).msg(0);
  }

  /**
   * Continuous reading: pulls stay outstanding and refill, heartbeats are
   * watched and reconnects re-pulled in the connection's task (a slow loop
   * never causes a missed heartbeat). As nats.js, a deleted consumer is
   * waited for (reported by `status()`) unless `abort_on_missing_resource`,
   * which ends it with a `CONSUMER_STATUS` error; a 400 bad request ends it.
   * With `callback`, each message goes to it instead of to the iterator.
   */
  async consume(opts?: ConsumeOptions): Promise<ConsumerMessages> {
    const callback = opts?.callback;
    return new ConsumerMessages(this.#raw.consume(opts), callback);
  }
}

/** nats.js's `js.consumers`. */
export class Consumers {
  readonly #raw: RawJetStream;

  /** Made by `jetstream()`. */
  constructor(raw: RawJetStream) {
    this.#raw = raw;
  }

  /** The pull consumer `name` of `stream`; rejects (`JETSTREAM`, 10014) if it does not exist. */
  async get(stream: string, name: string): Promise<Consumer> {
    const info = await requestText(this.#raw, "CONSUMER.INFO", stream, name);
    return new Consumer(this.#raw.consumer(info), this.#raw, parseReply(info));
  }
}

/** Whether `v` is a pull consumer, as nats.js's helper. */
export function isPullConsumer(v: unknown): v is Consumer {
  return v instanceof Consumer;
}

/** Always false: natsjet has no push consumers (nats.js's helper). */
export function isPushConsumer(_v: unknown): false {
  return false;
}
