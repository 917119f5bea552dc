/**
 * `JetStreamManager`, shaped like nats.js's: `streams` and `consumers`
 * management and account info. Configs go to wasm as JSON with the
 * server's field names, durations in nanoseconds (as in nats.js).
 */
import type {
  AccountInfo,
  ConsumerConfig,
  ConsumerInfo,
  ConsumerPauseResponse,
  PurgeResponse,
  RawJetStream,
  StreamConfig,
  StreamInfo,
} from "../raw.js";
import { headers, type MsgHdrs } from "../headers.js";
import { unpack, type Publisher } from "../msg.js";
import type { JetStreamClient, JetStreamOptions } from "./client.js";
import { Lister } from "./lister.js";

/** Which messages `purge` removes; `seq` and `keep` exclude each other. */
export interface PurgeOpts {
  /** Only subjects matching this (wildcards allowed). */
  filter?: string;
  /** Messages below this sequence. */
  seq?: number;
  /** All but the newest `keep` (per subject with `filter`). */
  keep?: number;
}

/** The message `getMessage` reads: at `seq`, the last on a subject, or the first on a subject from `seq`. */
export type MsgRequest = { seq: number } | { last_by_subj: string } | { next_by_subj: string; seq?: number };

/** A message read back from a stream, as nats.js's `StoredMsg`. */
export interface StoredMsg {
  subject: string;
  seq: number;
  /** Its headers (empty when it had none). */
  header: MsgHdrs;
  data: Uint8Array;
  time: Date;
  /** The server's RFC 3339 time. */
  timestamp: string;
  string(): string;
  json<T = unknown>(): T;
}

export class StreamAPI {
  readonly #raw: RawJetStream;
  readonly #publisher: Publisher;

  /** Made by `jetstreamManager()`. */
  constructor(raw: RawJetStream, publisher: Publisher) {
    this.#raw = raw;
    this.#publisher = publisher;
  }

  /** Rejects with `JETSTREAM` (`errCode` 10059) when there is no such stream. */
  info(name: string): Promise<StreamInfo> {
    return this.#raw.streamInfo(name);
  }

  /** Creates a stream; an existing one with the same config is returned, with another it is an error (10058). */
  async add(cfg: StreamConfig): Promise<StreamInfo> {
    return this.#raw.addStream(JSON.stringify(cfg));
  }

  /**
   * Sets stream `name`'s config to `cfg`: the whole config, as natsjet's
   * Rust `update_stream` (nats.js merges a partial one into the current
   * config). Start from `(await jsm.streams.info(name)).config`.
   */
  async update(name: string, cfg: StreamConfig): Promise<StreamInfo> {
    return this.#raw.updateStream(JSON.stringify({ ...cfg, name }));
  }

  /** Removes every message, or those `opts` select. */
  async purge(name: string, opts: PurgeOpts = {}): Promise<PurgeResponse> {
    return this.#raw.purgeStream(name, opts.filter, opts.seq, opts.keep);
  }

  /** Deletes the stream and its consumers. */
  delete(name: string): Promise<boolean> {
    return this.#raw.deleteStream(name);
  }

  /** Info of every stream. */
  list(): Lister<StreamInfo> {
    return new Lister(this.#raw.listStreams());
  }

  /** Names of every stream, or of those storing subjects that overlap `subject`. */
  names(subject?: string): Lister<string> {
    return new Lister(this.#raw.streamNames(subject));
  }

  /** A stored message; rejects with `JETSTREAM` (`errCode` 10037) when there is none. */
  async getMessage(name: string, query: MsgRequest): Promise<StoredMsg> {
    const q = query as { seq?: number; last_by_subj?: string; next_by_subj?: string };
    const [batch, seq, timestamp] = await this.#raw.getMessage(name, q.seq, q.last_by_subj, q.next_by_subj);
    const msg = unpack(batch, 0, this.#publisher)[0]!;
    return {
      subject: msg.subject,
      seq,
      header: msg.headers ?? headers(),
      data: msg.data,
      time: new Date(timestamp),
      timestamp,
      string: () => msg.string(),
      json: <T>() => msg.json<T>(),
    };
  }

  /** Deletes the message at `seq`; `erase` (default) also overwrites its bytes. */
  async deleteMessage(name: string, seq: number, erase = true): Promise<boolean> {
    return this.#raw.deleteMessage(name, seq, erase);
  }
}

export class ConsumerAPI {
  readonly #raw: RawJetStream;

  /** Made by `jetstreamManager()`. */
  constructor(raw: RawJetStream) {
    this.#raw = raw;
  }

  /** Rejects with `JETSTREAM` (`errCode` 10014) when there is no such consumer. */
  info(stream: string, name: string): Promise<ConsumerInfo> {
    return this.#raw.consumerInfo(stream, name);
  }

  /**
   * Creates a consumer (nats.js's `add`: action `create`). An identical one is
   * returned; another config under that name is an error (10148).
   */
  async add(stream: string, cfg: ConsumerConfig): Promise<ConsumerInfo> {
    return this.#raw.addConsumer(stream, config(cfg));
  }

  /**
   * Sets consumer `name`'s config to `cfg` (the whole config, as the Rust
   * `update_consumer`; nats.js merges). It must exist (10149).
   */
  async update(stream: string, name: string, cfg: ConsumerConfig): Promise<ConsumerInfo> {
    return this.#raw.updateConsumer(stream, config({ name, ...cfg }));
  }

  delete(stream: string, name: string): Promise<boolean> {
    return this.#raw.deleteConsumer(stream, name);
  }

  /** Info of every consumer of `stream`. */
  list(stream: string): Lister<ConsumerInfo> {
    return new Lister(this.#raw.listConsumers(stream));
  }

  /** Stops delivery until `until` (server 2.11+); acks are still taken. */
  async pause(stream: string, name: string, until: Date): Promise<ConsumerPauseResponse> {
    return this.#raw.pauseConsumer(stream, name, until.getTime());
  }

  async resume(stream: string, name: string): Promise<ConsumerPauseResponse> {
    return this.#raw.resumeConsumer(stream, name);
  }
}

/** `cfg` as JSON; `deliver_policy` defaults to `all`, as the Rust `ConsumerConfig`'s does. */
function config(cfg: ConsumerConfig): string {
  return JSON.stringify({ deliver_policy: "all", ...cfg });
}

export class JetStreamManager {
  readonly streams: StreamAPI;
  readonly consumers: ConsumerAPI;
  readonly #raw: RawJetStream;
  readonly #opts: JetStreamOptions;
  readonly #client: () => JetStreamClient;

  /** Made by `jetstreamManager()`. */
  constructor(raw: RawJetStream, publisher: Publisher, opts: JetStreamOptions, client: () => JetStreamClient) {
    this.#raw = raw;
    this.#opts = opts;
    this.#client = client;
    this.streams = new StreamAPI(raw, publisher);
    this.consumers = new ConsumerAPI(raw);
  }

  /** The account's JetStream usage and limits (nats.js: `JetStreamAccountStats`). */
  getAccountInfo(): Promise<AccountInfo> {
    return this.#raw.accountInfo();
  }

  getOptions(): JetStreamOptions {
    return { ...this.#opts };
  }

  /** A `JetStreamClient` with the same options. */
  jetstream(): JetStreamClient {
    return this.#client();
  }
}
