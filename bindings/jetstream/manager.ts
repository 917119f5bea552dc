/**
 * `JetStreamManager`, shaped like nats.js's: `streams` and `consumers`
 * management and account info. Configs go out and infos come back as the
 * server's JSON (field names as the server's, durations in nanoseconds, as
 * in nats.js), through `request` (./api.ts).
 */
import type {
  AccountInfo,
  ConsumerConfig,
  ConsumerInfo,
  ConsumerPauseResponse,
  PurgeResponse,
  RawJetStream,
  StreamAlternate,
  StreamConfig,
  StreamInfo,
} from "../raw.js";
import { NatsError } from "../errors.js";
import { fromRaw, headers, type MsgHdrs } from "../headers.js";
import { request } from "./api.js";
import type { JetStreamClient, JetStreamOptions } from "./client.js";
import { Consumers, type Consumer } from "./consumer.js";
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

/** The server's `err_code` for "no message found". */
const NO_MESSAGE = 10037;

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

/** The message of a `STREAM.MSG.GET` reply: payload and raw `NATS/1.0` header block in base64. */
interface ApiStoredMsg {
  subject: string;
  seq: number;
  hdrs?: string;
  data?: string;
  time: string;
}

const decoder = new TextDecoder();

function fromBase64(text = ""): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** nats.js's `js.streams`: stream handles. */
export interface Streams {
  /** The stream `name`; rejects with `JETSTREAM` (`errCode` 10059) when there is none. */
  get(name: string): Promise<Stream>;
}

export class StreamAPI implements Streams {
  readonly #raw: RawJetStream;

  /** Made by `jetstreamManager()`, and by `jetstream()` for `js.streams`. */
  constructor(raw: RawJetStream) {
    this.#raw = raw;
  }

  /** Rejects with `JETSTREAM` (`errCode` 10059) when there is no such stream. */
  info(name: string): Promise<StreamInfo> {
    return request(this.#raw, "STREAM.INFO", name);
  }

  /** Creates a stream; an existing one with the same config is returned, with another it is an error (10058). */
  add(cfg: StreamConfig): Promise<StreamInfo> {
    return request(this.#raw, "STREAM.CREATE", cfg.name, "", cfg);
  }

  /** Changes the fields of stream `name`'s config that `cfg` sets, as nats.js: reads the config, merges, updates. */
  async update(name: string, cfg: Partial<StreamConfig> = {}): Promise<StreamInfo> {
    const { config } = await this.info(name);
    return request(this.#raw, "STREAM.UPDATE", name, "", { ...config, ...cfg, name });
  }

  /** Removes every message, or those `opts` select. */
  async purge(name: string, opts: PurgeOpts = {}): Promise<PurgeResponse> {
    if (opts.seq !== undefined && opts.keep !== undefined) {
      throw new NatsError("purge takes keep or seq, not both", "INVALID_ARGUMENT");
    }
    return request(this.#raw, "STREAM.PURGE", name, "", opts);
  }

  /** Deletes the stream and its consumers. */
  async delete(name: string): Promise<boolean> {
    return (await request<{ success: boolean }>(this.#raw, "STREAM.DELETE", name)).success;
  }

  /** Info of every stream, or of those storing subjects that overlap `subject`. */
  list(subject?: string): Lister<StreamInfo> {
    return new Lister(this.#raw.list("STREAM.LIST", "", subject));
  }

  /** Names of every stream, or of those storing subjects that overlap `subject`. */
  names(subject?: string): Lister<string> {
    return new Lister(this.#raw.list("STREAM.NAMES", "", subject));
  }

  /** The name of the stream that stores `subject`; rejects with `JETSTREAM` (`errCode` 10059) when none does. */
  async find(subject: string): Promise<string> {
    const [name] = await this.names(subject).next();
    if (name !== undefined) return name;
    const description = `no stream stores subject ${JSON.stringify(subject)}`;
    throw new NatsError(description, "JETSTREAM", { status: 404, errCode: 10059, description });
  }

  /** A handle on stream `name`, with its info; rejects with `JETSTREAM` (`errCode` 10059) when there is none. */
  async get(name: string): Promise<Stream> {
    return new Stream(this, new Consumers(this.#raw), await this.info(name));
  }

  /** A stored message, or `null` when there is none (as nats.js v3). */
  async getMessage(name: string, query: MsgRequest): Promise<StoredMsg | null> {
    const reply = request<{ message: ApiStoredMsg }>(this.#raw, "STREAM.MSG.GET", name, "", query).catch((e: unknown) => {
      if (e instanceof NatsError && e.errCode === NO_MESSAGE) return null;
      throw e;
    });
    const found = await reply;
    if (!found) return null;
    const m = found.message;
    const data = fromBase64(m.data);
    return {
      subject: m.subject,
      seq: m.seq,
      header: m.hdrs ? fromRaw(this.#raw.parseHeaders(fromBase64(m.hdrs))) : headers(),
      data,
      time: new Date(m.time),
      timestamp: m.time,
      string: () => decoder.decode(data),
      json: <T>() => JSON.parse(decoder.decode(data)) as T,
    };
  }

  /** Deletes the message at `seq`; `erase` (default) also overwrites its bytes. */
  async deleteMessage(name: string, seq: number, erase = true): Promise<boolean> {
    const body = erase ? { seq } : { seq, no_erase: true };
    return (await request<{ success: boolean }>(this.#raw, "STREAM.MSG.DELETE", name, "", body)).success;
  }
}

/** nats.js's `Stream`: one stream, its info as of `streams.get` or the last `info()`. */
export class Stream {
  readonly name: string;
  readonly #api: StreamAPI;
  readonly #consumers: Consumers;
  #info: StreamInfo;

  /** Made by `streams.get`. */
  constructor(api: StreamAPI, consumers: Consumers, info: StreamInfo) {
    this.name = info.config.name;
    this.#api = api;
    this.#consumers = consumers;
    this.#info = info;
  }

  /** Fresh info from the server, or (`cached`) the info as of the last call. */
  async info(cached = false): Promise<StreamInfo> {
    if (!cached) this.#info = await this.#api.info(this.name);
    return this.#info;
  }

  /** Mirrors that can answer for this stream, from fresh info. */
  async alternates(): Promise<StreamAlternate[]> {
    return (await this.info()).alternates ?? [];
  }

  /** The first alternate (the server lists the closest first), or this stream without any. */
  async best(): Promise<Stream> {
    const [best] = await this.alternates();
    return best ? this.#api.get(best.name) : this;
  }

  /** The pull consumer `name` of this stream. */
  getConsumer(name: string): Promise<Consumer> {
    return this.#consumers.get(this.name, name);
  }

  getMessage(query: MsgRequest): Promise<StoredMsg | null> {
    return this.#api.getMessage(this.name, query);
  }

  deleteMessage(seq: number, erase?: boolean): Promise<boolean> {
    return this.#api.deleteMessage(this.name, seq, erase);
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
    return request(this.#raw, "CONSUMER.INFO", stream, name);
  }

  /**
   * Creates a consumer (nats.js's `add`: action `create`); `ack_policy`
   * defaults to `explicit`. An identical one is returned; another config
   * under that name is an error (10148).
   */
  add(stream: string, cfg: ConsumerConfig): Promise<ConsumerInfo> {
    return this.#create(stream, { ack_policy: "explicit", ...cfg }, "create");
  }

  /**
   * Changes the fields of consumer `name`'s config that `cfg` sets, as
   * nats.js: reads the config (10014 if there is no such consumer), merges,
   * updates (action `update`).
   */
  async update(stream: string, name: string, cfg: Partial<ConsumerConfig>): Promise<ConsumerInfo> {
    const { config } = await this.info(stream, name);
    return this.#create(stream, { ...config, ...cfg }, "update");
  }

  async delete(stream: string, name: string): Promise<boolean> {
    return (await request<{ success: boolean }>(this.#raw, "CONSUMER.DELETE", stream, name)).success;
  }

  /** Info of every consumer of `stream`. */
  list(stream: string): Lister<ConsumerInfo> {
    return new Lister(this.#raw.list("CONSUMER.LIST", stream));
  }

  /** Stops delivery until `until` (server 2.11+); acks are still taken. */
  pause(stream: string, name: string, until: Date): Promise<ConsumerPauseResponse> {
    return request(this.#raw, "CONSUMER.PAUSE", stream, name, { pause_until: until.toISOString() });
  }

  resume(stream: string, name: string): Promise<ConsumerPauseResponse> {
    return request(this.#raw, "CONSUMER.PAUSE", stream, name, {});
  }

  /** `CONSUMER.CREATE`; Rust takes the subject's name and filter from `config`. */
  #create(stream: string, config: Partial<ConsumerConfig>, action: "create" | "update"): Promise<ConsumerInfo> {
    return request(this.#raw, "CONSUMER.CREATE", stream, "", { stream_name: stream, config, action });
  }
}

export class JetStreamManager {
  readonly streams: StreamAPI;
  readonly consumers: ConsumerAPI;
  readonly #raw: RawJetStream;
  readonly #opts: JetStreamOptions;
  readonly #client: () => JetStreamClient;

  /** Made by `jetstreamManager()`. */
  constructor(raw: RawJetStream, opts: JetStreamOptions, client: () => JetStreamClient) {
    this.#raw = raw;
    this.#opts = opts;
    this.#client = client;
    this.streams = new StreamAPI(raw);
    this.consumers = new ConsumerAPI(raw);
  }

  /** The account's JetStream usage and limits (nats.js: `JetStreamAccountStats`). */
  getAccountInfo(): Promise<AccountInfo> {
    return request(this.#raw, "INFO");
  }

  getOptions(): JetStreamOptions {
    return { ...this.#opts };
  }

  /** A `JetStreamClient` with the same options. */
  jetstream(): JetStreamClient {
    return this.#client();
  }
}
