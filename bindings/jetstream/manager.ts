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
  ConsumerResetResponse,
  PurgeResponse,
  RawDirectBatch,
  RawJetStream,
  StreamAlternate,
  StreamConfig,
  StreamInfo,
  StreamInfoRequestOptions,
} from "../raw.js";
import { InvalidArgumentError, InvalidOperationError, isMessageNotFound, StreamNotFoundError } from "../errors.js";
import { fromRaw, headers, type MsgHdrs } from "../headers.js";
import { parseReply, request } from "./api.js";
import type { JetStreamClient, JetStreamOptions } from "./client.js";
import type { NatsConnection } from "../connection.js";
import type { Subscription } from "../subscription.js";
import type { AdvisoryKind } from "./enums.js";
import { Consumers, type Consumer, type OrderedPushConsumerOptions, type PushConsumer } from "./consumer.js";
import { Lister } from "./lister.js";
import { optStr, str } from "../names.js";

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
export type MsgRequest =
  | {
      /** The message at this stream sequence. */
      seq: number;
    }
  | {
      /** The last message on this subject. */
      last_by_subj: string;
    }
  | {
      /** The first message on this subject (wildcards allowed) at or after `seq`. */
      next_by_subj: string;
      /** Where the search starts (default 0: the stream's start). */
      seq?: number;
    };

/** The message `direct.getMessage` reads: also the first at or after `start_time` (on `next_by_subj`, if given). */
export type DirectMsgRequest =
  | MsgRequest
  | {
      /** The first message stored at or after this time (server 2.11+). */
      start_time: Date | string;
      /** Only messages on this subject (wildcards allowed). */
      next_by_subj?: string;
    };

/**
 * Receives a batched direct get's messages instead of an iterator, as
 * nats.js's: `(null, m)` for each, then `({ err? }, {})` once at the end.
 */
export type DirectBatchCallback = (done: { err?: Error } | null, m: StoredMsg) => void;

/** What `direct.getBatch` reads: from `seq` or `start_time` (on `next_by_subj`, if given), at most `batch` (1024) messages or `max_bytes`. */
export type DirectBatchOptions = {
  /** The most messages to return (default 1024). */
  batch?: number;
  /** Stop once the messages returned reach this many bytes. */
  max_bytes?: number;
  /** Only messages on this subject (wildcards allowed). */
  next_by_subj?: string;
  /** Hands the messages to this callback instead of the iterator. */
  callback?: DirectBatchCallback;
} & (
  | {
      /** The first stream sequence to read. */
      seq: number;
      /** Not with `seq`. */
      start_time?: never;
    }
  | {
      /** Read from the first message stored at or after this time. */
      start_time: Date | string;
      /** Not with `start_time`. */
      seq?: never;
    }
);

/** What `direct.getLastMessagesFor` reads: the newest message of each subject, as of `up_to_seq` or `up_to_time`. */
export type DirectLastFor = {
  /** The subjects (wildcards allowed) whose last messages to read. */
  multi_last: string[];
  /** The last messages as of this time. */
  up_to_time?: Date | string;
  /** The last messages at or below this stream sequence. */
  up_to_seq?: number;
  /** The most messages to return. */
  batch?: number;
  /** Stop once the messages returned reach this many bytes. */
  max_bytes?: number;
  /** Hands the messages to this callback instead of the iterator. */
  callback?: DirectBatchCallback;
};

/** A message read back from a stream, as nats.js's `StoredMsg`. */
export interface StoredMsg {
  /** The subject it was published to. */
  subject: string;
  /** Its stream sequence. */
  seq: number;
  /** Its headers (empty when it had none). */
  header: MsgHdrs;
  /** Its payload. */
  data: Uint8Array;
  /** When the stream stored it. */
  time: Date;
  /** The server's RFC 3339 time. */
  timestamp: string;
  /** The payload decoded as UTF-8. */
  string(): string;
  /** The payload parsed as JSON. */
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

function storedMsg(subject: string, seq: number, header: MsgHdrs, data: Uint8Array, time: string): StoredMsg {
  return {
    subject,
    seq,
    header,
    data,
    time: new Date(time),
    timestamp: time,
    string: () => decoder.decode(data),
    json: <T>() => JSON.parse(decoder.decode(data)) as T,
  };
}

/** Messages read from wasm per crossing, at most. */
const BATCH = 256;

/** The messages of a batched direct get, in stream order (nats.js: a `QueuedIterator<StoredMsg>`). */
export class StoredMsgs implements AsyncIterable<StoredMsg> {
  readonly #raw: RawDirectBatch;
  readonly #callback: DirectBatchCallback | undefined;
  #processed = 0;

  /** Made by `direct.getBatch` and `direct.getLastMessagesFor`. */
  constructor(raw: RawDirectBatch, callback?: DirectBatchCallback) {
    this.#raw = raw;
    this.#callback = callback;
    if (callback) void this.#pump(callback);
  }

  /** Messages handed out so far. */
  getProcessed(): number {
    return this.#processed;
  }

  /** Drops the rest of the batch; the iteration ends after what was read. */
  stop(): void {
    this.#raw.stop();
  }

  /** The messages, in stream order; throws an `InvalidOperationError` when a callback receives them. */
  [Symbol.asyncIterator](): AsyncIterator<StoredMsg> {
    if (this.#callback) throw new InvalidOperationError("a direct batch with a callback cannot be iterated");
    return this.#messages();
  }

  async *#messages(): AsyncGenerator<StoredMsg> {
    try {
      for (let batch = await this.#raw.nextBatch(BATCH); batch; batch = await this.#raw.nextBatch(BATCH)) {
        for (const [subject, seq, time, raw, data] of batch) {
          this.#processed++;
          yield storedMsg(subject, seq, raw ? fromRaw(raw) : headers(), data, time);
        }
      }
    } finally {
      this.#raw.stop();
    }
  }

  async #pump(callback: DirectBatchCallback): Promise<void> {
    let done: { err?: Error } = {};
    try {
      for await (const m of this.#messages()) callback(null, m);
    } catch (err) {
      // The server's error ends it; so does a throw of the callback.
      done = { err: err as Error };
    }
    callback(done, {} as StoredMsg);
  }
}

/** nats.js's `js.streams`: stream handles. */
export interface Streams {
  /** The stream `name`; rejects with a `StreamNotFoundError` (`code` 10059) when there is none. */
  get(name: string): Promise<Stream>;
}

/** nats.js's `jsm.streams`: creates, changes, lists and deletes streams, and reads their messages. */
export class StreamAPI implements Streams {
  readonly #raw: RawJetStream;

  /** Made by `jetstreamManager()`, and by `jetstream()` for `js.streams`. */
  constructor(raw: RawJetStream) {
    this.#raw = raw;
  }

  /**
   * The stream's info; `opts` adds the message count of each subject
   * matching `subjects_filter` (every page of them, merged into
   * `state.subjects`) and, with `deleted_details`, the deleted sequences
   * (`state.deleted`). Rejects with a `StreamNotFoundError` (`code` 10059) when
   * there is no such stream.
   */
  async info(name: string, opts?: StreamInfoRequestOptions): Promise<StreamInfo> {
    if (!opts) return request(this.#raw, "STREAM.INFO", name);
    const pages = await this.#raw.streamInfo(str(name, "stream name"), optStr(opts.subjects_filter, "subjects_filter"), opts.deleted_details);
    const [info, ...more] = pages.map((page) => parseReply<StreamInfo>(page));
    for (const page of more) Object.assign((info!.state.subjects ??= {}), page.state.subjects);
    return info!;
  }

  /** Creates a stream; an existing one with the same config is returned, with another it is an error (10058). */
  add(cfg: StreamConfig): Promise<StreamInfo> {
    return request(this.#raw, "STREAM.CREATE", cfg.name, "", cfg);
  }

  /**
   * natsjet: the stream `cfg` names, whatever its config, else one created
   * from `cfg`. Safe from many clients at once: one that loses the race to
   * create looks the winner's stream up.
   */
  getOrCreate(cfg: StreamConfig): Promise<StreamInfo> {
    return request(this.#raw, "STREAM.GET_OR_CREATE", cfg.name, "", cfg);
  }

  /** Changes the fields of stream `name`'s config that `cfg` sets, as nats.js: reads the config, merges, updates. */
  async update(name: string, cfg: Partial<StreamConfig> = {}): Promise<StreamInfo> {
    const { config } = await this.info(name);
    return request(this.#raw, "STREAM.UPDATE", name, "", { ...config, ...cfg, name });
  }

  /** Removes every message, or those `opts` select. */
  async purge(name: string, opts: PurgeOpts = {}): Promise<PurgeResponse> {
    if (opts.seq !== undefined && opts.keep !== undefined) {
      throw new InvalidArgumentError("purge takes keep or seq, not both");
    }
    return request(this.#raw, "STREAM.PURGE", name, "", opts);
  }

  /** Deletes the stream and its consumers. */
  async delete(name: string): Promise<boolean> {
    return (await request<{ success: boolean }>(this.#raw, "STREAM.DELETE", name)).success;
  }

  /** Info of every stream, or of those storing subjects that overlap `subject`. */
  list(subject?: string): Lister<StreamInfo> {
    return new Lister(this.#raw.list("STREAM.LIST", "", optStr(subject, "subject")));
  }

  /** Names of every stream, or of those storing subjects that overlap `subject`. */
  names(subject?: string): Lister<string> {
    return new Lister(this.#raw.list("STREAM.NAMES", "", optStr(subject, "subject")));
  }

  /** The name of the stream that stores `subject`; rejects with a `StreamNotFoundError` (`code` 10059) when none does. */
  async find(subject: string): Promise<string> {
    const [name] = await this.names(subject).next();
    if (name !== undefined) return name;
    throw StreamNotFoundError.fromMessage("no stream matches subject");
  }

  /** A handle on stream `name`, with its info; rejects with a `StreamNotFoundError` (`code` 10059) when there is none. */
  async get(name: string): Promise<Stream> {
    return new Stream(this, new Consumers(this.#raw), new ConsumerAPI(this.#raw), await this.info(name));
  }

  /** A stored message, or `null` when there is none (as nats.js v3). */
  async getMessage(name: string, query: MsgRequest): Promise<StoredMsg | null> {
    const reply = request<{ message: ApiStoredMsg }>(this.#raw, "STREAM.MSG.GET", name, "", query).catch((e: unknown) => {
      if (e instanceof Error && isMessageNotFound(e)) return null;
      throw e;
    });
    const found = await reply;
    if (!found) return null;
    const m = found.message;
    const header = m.hdrs ? fromRaw(this.#raw.parseHeaders(fromBase64(m.hdrs))) : headers();
    return storedMsg(m.subject, m.seq, header, fromBase64(m.data), m.time);
  }

  /** Deletes the message at `seq`; `erase` (default) also overwrites its bytes. */
  async deleteMessage(name: string, seq: number, erase = true): Promise<boolean> {
    const body = erase ? { seq } : { seq, no_erase: true };
    return (await request<{ success: boolean }>(this.#raw, "STREAM.MSG.DELETE", name, "", body)).success;
  }
}

/** nats.js's `Stream`: one stream, its info as of `streams.get` or the last `info()`. */
export class Stream {
  /** The stream's name. */
  readonly name: string;
  readonly #api: StreamAPI;
  readonly #consumers: Consumers;
  readonly #consumerApi: ConsumerAPI;
  #info: StreamInfo;

  /** Made by `streams.get`. */
  constructor(api: StreamAPI, consumers: Consumers, consumerApi: ConsumerAPI, info: StreamInfo) {
    this.name = info.config.name;
    this.#api = api;
    this.#consumers = consumers;
    this.#consumerApi = consumerApi;
    this.#info = info;
  }

  /** Fresh info from the server (with the details `opts` asks for, see `streams.info`), or (`cached`) the info as of the last call. */
  async info(cached = false, opts?: StreamInfoRequestOptions): Promise<StreamInfo> {
    if (!cached) this.#info = await this.#api.info(this.name, opts);
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

  /** The push consumer `name` of this stream, or an ordered one; see `consumers.getPushConsumer`. */
  getPushConsumer(nameOrOpts?: string | OrderedPushConsumerOptions): Promise<PushConsumer> {
    return this.#consumers.getPushConsumer(this.name, nameOrOpts);
  }

  /** A stored message of this stream, or `null`; see `streams.getMessage`. */
  getMessage(query: MsgRequest): Promise<StoredMsg | null> {
    return this.#api.getMessage(this.name, query);
  }

  /** Deletes the message at `seq`; see `streams.deleteMessage`. */
  deleteMessage(seq: number, erase?: boolean): Promise<boolean> {
    return this.#api.deleteMessage(this.name, seq, erase);
  }

  /** Resets consumer `name`'s delivery state; see `consumers.reset`. */
  resetConsumer(name: string, seq?: number): Promise<ConsumerResetResponse> {
    return this.#consumerApi.reset(this.name, name, seq);
  }
}

/** nats.js's `jsm.direct`: messages read from any replica of a stream with `allow_direct`. */
export class DirectStreamAPI {
  readonly #raw: RawJetStream;

  /** Made by `jetstreamManager()`. */
  constructor(raw: RawJetStream) {
    this.#raw = raw;
  }

  /**
   * The message `query` selects, or `null` when there is none. Without
   * `allow_direct` on the stream nobody answers: rejects with
   * `NO_RESPONDERS`. No read-after-write guarantee: a replica may lag.
   */
  async getMessage(stream: string, query: DirectMsgRequest): Promise<StoredMsg | null> {
    const last = "last_by_subj" in query ? query.last_by_subj : undefined;
    const found = await this.#raw.directGet(str(stream, "stream name"), optStr(last, "last_by_subj"), last === undefined ? JSON.stringify(query) : "");
    if (!found) return null;
    const [subject, seq, time, raw, data] = found;
    return storedMsg(subject, seq, raw ? fromRaw(raw) : headers(), data, time);
  }

  /**
   * Up to `opts.batch` (1024) messages in one request, from `seq` or
   * `start_time` (server 2.11+, `allow_direct`). The JetStream timeout
   * bounds the whole batch.
   */
  async getBatch(stream: string, opts: DirectBatchOptions): Promise<StoredMsgs> {
    // JSON leaves the callback out.
    const raw = this.#raw.directGetBatch(str(stream, "stream name"), JSON.stringify({ ...opts, batch: opts.batch || 1024 }));
    return new StoredMsgs(raw, opts.callback);
  }

  /** The newest message of each subject in `opts.multi_last` (server 2.11+), in stream order. */
  async getLastMessagesFor(stream: string, opts: DirectLastFor): Promise<StoredMsgs> {
    return new StoredMsgs(this.#raw.directGetBatch(str(stream, "stream name"), JSON.stringify(opts)), opts.callback);
  }
}

/** nats.js's `jsm.consumers`: creates, changes, lists, pauses and deletes consumers. */
export class ConsumerAPI {
  readonly #raw: RawJetStream;

  /** Made by `jetstreamManager()`. */
  constructor(raw: RawJetStream) {
    this.#raw = raw;
  }

  /** Rejects with a `ConsumerNotFoundError` (`code` 10014) when there is no such consumer. */
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
   * natsjet: the durable consumer `name`, whatever its config, else one
   * created from `cfg` (named `name` when it names nothing; `ack_policy`
   * defaults to `explicit`). Never updates a consumer, so workers starting
   * together with different configs all get the one created first.
   */
  getOrCreate(stream: string, name: string, cfg: Partial<ConsumerConfig> = {}): Promise<ConsumerInfo> {
    const config = cfg.name === undefined && cfg.durable_name === undefined ? { ...cfg, durable_name: name } : cfg;
    const body = { stream_name: stream, config: { ack_policy: "explicit", ...config }, action: "create" };
    return request(this.#raw, "CONSUMER.GET_OR_CREATE", stream, name, body);
  }

  /** Creates the consumer, or updates the one with that name (nats.js's `addOrUpdate`: action `""`); `ack_policy` defaults to `explicit`. */
  addOrUpdate(stream: string, cfg: ConsumerConfig): Promise<ConsumerInfo> {
    return this.#create(stream, { ack_policy: "explicit", ...cfg }, "");
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

  /** Deletes consumer `name` of `stream`; `true` once deleted. */
  async delete(stream: string, name: string): Promise<boolean> {
    return (await request<{ success: boolean }>(this.#raw, "CONSUMER.DELETE", stream, name)).success;
  }

  /** Info of every consumer of `stream`. */
  list(stream: string): Lister<ConsumerInfo> {
    return new Lister(this.#raw.list("CONSUMER.LIST", str(stream, "stream name")));
  }

  /** natsjet: names of every consumer of `stream`. */
  names(stream: string): Lister<string> {
    return new Lister(this.#raw.list("CONSUMER.NAMES", str(stream, "stream name")));
  }

  /** Stops delivery until `until` (server 2.11+); acks are still taken. */
  pause(stream: string, name: string, until: Date): Promise<ConsumerPauseResponse> {
    return request(this.#raw, "CONSUMER.PAUSE", stream, name, { pause_until: until.toISOString() });
  }

  /** Resumes delivery of a paused consumer (server 2.11+). */
  resume(stream: string, name: string): Promise<ConsumerPauseResponse> {
    return request(this.#raw, "CONSUMER.PAUSE", stream, name, {});
  }

  /** Unpins the client pinned to priority group `group` (server 2.11+); the group's next pull gets the pin. */
  async unpin(stream: string, name: string, group: string): Promise<void> {
    await request(this.#raw, "CONSUMER.UNPIN", stream, name, { group });
  }

  /**
   * Resets the consumer's delivery state (ADR-60, server 2.14+): pending
   * and redelivered messages are dropped and delivery restarts after the
   * ack floor, or with `seq` at stream sequence `seq` or later. Only for
   * deliver policies `all`, `by_start_sequence` and `by_start_time` (not
   * below their start). A missing consumer rejects with a
   * `ConsumerNotFoundError` (`code` 10014) after the timeout (the server
   * does not answer for it). Readers of the consumer are not told: stop and
   * restart them.
   */
  reset(stream: string, name: string, seq?: number): Promise<ConsumerResetResponse> {
    return request(this.#raw, "CONSUMER.RESET", stream, name, seq === undefined ? undefined : { seq });
  }

  /** `CONSUMER.CREATE`; Rust takes the subject's name and filter from `config`. */
  #create(stream: string, config: Partial<ConsumerConfig>, action: "create" | "update" | ""): Promise<ConsumerInfo> {
    return request(this.#raw, "CONSUMER.CREATE", stream, "", { stream_name: stream, config, action });
  }
}

/** A JetStream advisory: its kind and its JSON (nats.js's `Advisory`). */
export type Advisory = {
  /** The kind, the last part of the advisory's `type`. */
  kind: AdvisoryKind;
  /** The advisory's JSON, as the server sent it. */
  data: unknown;
};

/**
 * nats.js's `JetStreamManager`: manages streams and consumers, reads stored
 * messages and account info. Made by `jetstreamManager(nc)`.
 */
export class JetStreamManager {
  /** Stream management. */
  readonly streams: StreamAPI;
  /** Consumer management. */
  readonly consumers: ConsumerAPI;
  /** Direct gets: reads from any replica of streams with `allow_direct`. */
  readonly direct: DirectStreamAPI;
  readonly #raw: RawJetStream;
  readonly #opts: JetStreamOptions;
  readonly #client: () => JetStreamClient;
  readonly #nc: NatsConnection;

  /** Made by `jetstreamManager()`. */
  constructor(nc: NatsConnection, raw: RawJetStream, opts: JetStreamOptions, client: () => JetStreamClient) {
    this.#nc = nc;
    this.#raw = raw;
    this.#opts = opts;
    this.#client = client;
    this.streams = new StreamAPI(raw);
    this.consumers = new ConsumerAPI(raw);
    this.direct = new DirectStreamAPI(raw);
  }

  /** The account's JetStream usage and limits (nats.js: `JetStreamAccountStats`). */
  getAccountInfo(): Promise<AccountInfo> {
    return request(this.#raw, "INFO");
  }

  /** A copy of the options it was made with. */
  getOptions(): JetStreamOptions {
    return { ...this.#opts };
  }

  /** A `JetStreamClient` with the same options. */
  jetstream(): JetStreamClient {
    return this.#client();
  }

  /**
   * The server's JetStream advisories (`$JS.EVENT.ADVISORY.>`) from now on,
   * as nats.js: each with its kind, the last part of its `type`. Leaving
   * the loop unsubscribes.
   */
  advisories(): AsyncIterable<Advisory> {
    return advisoriesOf(this.#nc.subscribe("$JS.EVENT.ADVISORY.>"));
  }
}

async function* advisoriesOf(sub: Subscription): AsyncIterable<Advisory> {
  try {
    for await (const m of sub) {
      const data = m.json<{ type: string }>();
      yield { kind: data.type.split(".").pop() as AdvisoryKind, data };
    }
  } finally {
    sub.unsubscribe();
  }
}
