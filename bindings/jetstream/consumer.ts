/**
 * Pull consumers shaped like nats.js's `Consumer` (`js.consumers.get`):
 * `fetch` one batch, `next` one message, `consume` continuously.
 */
import type { ConsumeOptions, ConsumerInfo, FetchOptions, RawConsumer, RawJetStream } from "../raw.js";
import type { Publisher } from "../msg.js";
import { parseReply, request, requestText } from "./api.js";
import { ConsumerMessages } from "./consumer_messages.js";
import { unpackDelivered, type JsMsg } from "./jsmsg.js";

export type { ConsumeOptions, FetchOptions };

export interface NextOptions {
  /** Milliseconds to wait for a message (30000). */
  expires?: number;
}

export class Consumer {
  readonly #raw: RawConsumer;
  readonly #js: RawJetStream;
  readonly #publisher: Publisher;
  #info: ConsumerInfo;

  /** Made by `js.consumers.get`. */
  constructor(raw: RawConsumer, js: RawJetStream, info: ConsumerInfo, publisher: Publisher) {
    this.#raw = raw;
    this.#js = js;
    this.#info = info;
    this.#publisher = publisher;
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
    return new ConsumerMessages(this.#raw.fetch(opts), this.#publisher);
  }

  /** The next message, or `null` if none came within `expires`. */
  async next(opts: NextOptions = {}): Promise<JsMsg | null> {
    const delivered = await this.#raw.next(opts.expires);
    return delivered && unpackDelivered(delivered, this.#publisher)[0]!;
  }

  /**
   * Continuous reading: pulls stay outstanding and refill, heartbeats are
   * watched and reconnects re-pulled in the connection's task (a slow loop
   * never causes a missed heartbeat). It ends only when stopped, or with a
   * `CONSUMER_STATUS` error on a terminal status (consumer deleted…).
   */
  async consume(opts?: ConsumeOptions): Promise<ConsumerMessages> {
    return new ConsumerMessages(this.#raw.consume(opts), this.#publisher);
  }
}

/** nats.js's `js.consumers`. */
export class Consumers {
  readonly #raw: RawJetStream;
  readonly #publisher: Publisher;

  /** Made by `jetstream()`. */
  constructor(raw: RawJetStream, publisher: Publisher) {
    this.#raw = raw;
    this.#publisher = publisher;
  }

  /** The pull consumer `name` of `stream`; rejects (`JETSTREAM`, 10014) if it does not exist. */
  async get(stream: string, name: string): Promise<Consumer> {
    const info = await requestText(this.#raw, "CONSUMER.INFO", stream, name);
    return new Consumer(this.#raw.consumer(info), this.#raw, parseReply(info), this.#publisher);
  }
}
