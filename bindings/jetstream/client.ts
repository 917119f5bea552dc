/**
 * `jetstream()` and `jetstreamManager()`, shaped like nats.js v3's
 * `@nats-io/jetstream`: a JetStream context on a `NatsConnection` in wasm,
 * and the client (publish, consumers, `AckBatch`) and manager over it.
 */
import type { RawConnection, RawJetStream, RawPublishOptions, ServerInfo } from "../raw.js";
import type { NatsConnection } from "../connection.js";
import { toRaw, type MsgHdrs } from "../headers.js";
import { encode, type Payload } from "../msg.js";
import { str } from "../names.js";
import { InvalidArgumentError, InvalidOperationError } from "../errors.js";
import { AckBatch, type AckBatchOptions } from "./ack_batch.js";
import { Batch } from "./batch.js";
import { Consumers } from "./consumer.js";
import { JetStreamManager, StreamAPI, type Streams } from "./manager.js";

/** Options of `jetstream()` and `jetstreamManager()` (nats.js's `JetStreamOptions`). */
export interface JetStreamOptions {
  /** API prefix of an imported JetStream account (default `$JS.API`). */
  apiPrefix?: string;
  /** A JetStream domain: the prefix becomes `$JS.<domain>.API` (it wins over `apiPrefix`). */
  domain?: string;
  /** Milliseconds to wait for API answers, publish acks and confirmed acks (5000, as nats.js). */
  timeout?: number;
  /** natsjet: publishes awaiting their ack at once, at most (256); later ones go out as acks come back. */
  maxAckInflight?: number;
}

/** Options of `jetstreamManager()`. */
export interface JetStreamManagerOptions extends JetStreamOptions {
  /** `false`: skip the account info call that checks JetStream is enabled. */
  checkAPI?: boolean;
}

/** Options of `js.publish` (nats.js's `JetStreamPublishOptions`). */
export interface JetStreamPublishOptions {
  /** De-duplication id: a repeat within the stream's `duplicate_window` is acked as `duplicate` and not stored. */
  msgID?: string;
  /** Milliseconds to wait for the ack (the JetStream timeout). */
  timeout?: number;
  /** Headers sent with the message. */
  headers?: MsgHdrs;
  /** What the stream must look like for the message to be stored; a mismatch rejects with a `JetStreamApiError`. */
  expect?: {
    /** The `Nats-Msg-Id` of the stream's last message (a `JetStreamApiError`, `code` 10070, otherwise). */
    lastMsgID?: string;
    /** The stream that must capture the subject. */
    streamName?: string;
    /** The stream's last sequence (a `JetStreamApiError`, `code` 10071, otherwise). */
    lastSequence?: number;
    /** The last sequence on this subject; 0: no message on it yet. */
    lastSubjectSequence?: number;
    /** The subject (wildcards allowed) whose last sequence `lastSubjectSequence` checks, instead of this one. */
    lastSubjectSequenceSubject?: string;
  };
  /** Per-message TTL as a Go duration (`"90s"`, `"1h"`) or `"never"`; the stream needs `allow_msg_ttl`. */
  ttl?: string;
  /** Attempts while no stream answers (503: a stream being created, a leader election), 50, 100, 200… ms apart (1, as nats.js: no re-send; 0 is 1). */
  retries?: number;
  /** Makes the message a schedule (ADR-51; the stream needs `allow_msg_schedules`). */
  schedule?: ScheduleOptions;
  /**
   * Stops the schedule on `scheduleSubject` when this message is stored, in
   * the same operation (server 2.14). Not with `schedule`, and not to the
   * schedule's own subject.
   */
  cancelSchedule?: ScheduleCancellation;
}

/** The cron aliases nats-server knows (server 2.14). */
export type PredefinedSchedule = "@yearly" | "@annually" | "@monthly" | "@weekly" | "@daily" | "@midnight" | "@hourly";

/**
 * When a schedule fires: once `at` a time (server 2.12), `every` Go duration
 * (at least `"1s"`), on a 6-field `cron` expression (seconds first) or a
 * `predefined` alias (server 2.14).
 */
export type ScheduleSpec =
  | {
      /** Once, at this time (`@at`; a string as RFC 3339). */
      at: Date | string;
    }
  | {
      /** Repeatedly, this Go duration apart (`@every`, e.g. `"5m"`). */
      every: string;
    }
  | {
      /** On a 6-field cron expression, seconds first (`"0 0 5 * * *"`). */
      cron: string;
    }
  | {
      /** On a cron alias such as `"@daily"`. */
      predefined: PredefinedSchedule;
    };

/**
 * nats.js's `ScheduleOptions`. The server judges them: a bad pattern, target, source, TTL, time zone
 * or rollup is a `JetStreamApiError` with its `code` (10189 to 10223), nothing stored.
 */
export interface ScheduleOptions {
  /** A `ScheduleSpec`, a `Date` (once, then), or the `Nats-Schedule` header's value (`"@every 5m"`, `"0 0 5 * * *"`). */
  specification: string | Date | ScheduleSpec;
  /** The subject the produced messages go to (another subject of the same stream). */
  target: string;
  /** Publish the last message of this subject (no wildcards) instead of the schedule's own body. */
  source?: string;
  /** TTL of the produced messages (the stream needs `allow_msg_ttl`): a Go duration, seconds or `"never"`. */
  ttl?: string;
  /** IANA time zone of a cron or predefined schedule (server 2.14). */
  timezone?: string;
  /** The produced messages roll up their subject (server 2.14). */
  rollup?: "sub";
}

/** The schedule a publish stops (`cancelSchedule`). */
export interface ScheduleCancellation {
  /** The schedule's subject (`Nats-Scheduler`). */
  scheduleSubject: string;
}

/** `opts` as the wasm reads them: headers flattened, the schedule's specification as its header value. */
export function rawPublishOptions(opts: JetStreamPublishOptions | undefined): RawPublishOptions | undefined {
  if (opts === undefined) return undefined;
  const { headers, schedule, cancelSchedule: _, ...rest } = opts;
  const raw: RawPublishOptions = { ...rest, headers: headers && toRaw(headers) };
  if (schedule) {
    const { target, source, ttl, timezone, rollup } = schedule;
    const fields = [schedulePattern(schedule.specification), target, source, ttl, timezone, rollup];
    raw.schedule = fields.map((v) => v || "").join("\n");
  }
  if (opts.cancelSchedule) raw.cancelSchedule = opts.cancelSchedule.scheduleSubject;
  return raw;
}

/** The `Nats-Schedule` value of a specification, as nats.js writes it (`Date`s as `toISOString()`). */
function schedulePattern(spec: ScheduleOptions["specification"]): string {
  const at = (t: Date | string) => `@at ${t instanceof Date ? t.toISOString() : t}`;
  if (typeof spec === "string") return spec;
  if (spec instanceof Date) return at(spec);
  if ("at" in spec) return at(spec.at);
  if ("every" in spec) return `@every ${every(spec.every)}`;
  if ("cron" in spec) return spec.cron;
  if ("predefined" in spec) return spec.predefined;
  throw new InvalidArgumentError("invalid schedule specification");
}

/** Go duration units in milliseconds. */
const MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1e3, m: 6e4, h: 3.6e6 };

/**
 * `interval`, if it is a Go duration of at least 1 s: the one schedule rule
 * nats.js checks before sending (the server judges the others), so a program
 * catching its refusal behaves the same.
 */
function every(interval: string): string {
  const trimmed = interval.trim();
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy)];
  const why =
    trimmed === "" || parts.reduce((n, [part]) => n + part.length, 0) !== trimmed.length
      ? `@every: unrecognized duration format: ${JSON.stringify(interval)}`
      : parts.reduce((ms, [, n, unit]) => ms + Number(n) * MS[unit!]!, 0) < 1000
        ? "@every interval must be at least 1s"
        : "";
  if (why) throw new InvalidArgumentError(`schedule "@every ${interval}": ${why}`);
  return interval;
}

/** The stream's acknowledgement of a publish. */
export interface PubAck {
  /** The stream that stored the message. */
  stream: string;
  /** The message's sequence, or the original one's for a duplicate. */
  seq: number;
  /** Whether the stream had the message already (same `msgID` within its `duplicate_window`) and did not store it again. */
  duplicate: boolean;
  /** The JetStream domain of the stream, when it has one. */
  domain?: string;
  /** A counter stream's new total as decimal text (ADR-49; nats.js passes the server's field on too). */
  val?: string;
}

/**
 * nats.js's `JetStreamClient`, made by `jetstream(nc)`: publishes to streams
 * and reads them through consumers.
 */
export class JetStreamClient {
  /** @internal */
  readonly raw: RawJetStream;
  /** Consumer handles: `consumers.get(stream, name)`, ordered consumers and push consumers. */
  readonly consumers: Consumers;
  /** Stream handles: `streams.get(name)`. */
  readonly streams: Streams;
  readonly #nc: NatsConnection;
  readonly #opts: JetStreamOptions;

  /** Made by `jetstream()`. */
  constructor(nc: NatsConnection, opts: JetStreamOptions) {
    this.raw = context(nc, opts);
    this.consumers = new Consumers(this.raw);
    const streams = new StreamAPI(this.raw);
    this.streams = { get: (name) => streams.get(name) };
    this.#nc = nc;
    this.#opts = opts;
  }

  /** @internal The INFO of the server the connection is (or was last) connected to. */
  get info(): ServerInfo {
    return this.#nc.info;
  }

  /** The API prefix in use, e.g. `$JS.API`. */
  get apiPrefix(): string {
    return this.raw.apiPrefix;
  }

  /**
   * Publishes to a subject a stream captures; resolves with the stream's
   * ack. Publishes pipeline: up to 256 acks are awaited at once and the rest
   * go out as acks come back, in the order they were made. Rejects with
   * a `JetStreamApiError` when the stream refuses the message, as nats.js
   * with `JetStreamNotEnabled` (caused by a no-responders `RequestError`)
   * when no stream captures the subject, a `TimeoutError` without an ack.
   */
  async publish(subject: string, data?: Payload, opts?: JetStreamPublishOptions): Promise<PubAck> {
    const raw = rawPublishOptions(opts);
    const [stream, seq, duplicate, domain, , , val] = await this.raw.publish(str(subject, "subject"), encode(data), raw);
    const ack: PubAck = domain === undefined ? { stream, seq, duplicate } : { stream, seq, duplicate, domain };
    if (val !== undefined) ack.val = val;
    return ack;
  }

  /**
   * Starts an atomic batch (ADR-50, server 2.12; the stream needs
   * `allow_atomic`) with its first message, once the server has accepted
   * it: messages added to the batch are stored when it is committed, all
   * together, or none of them. Rejects with the server's
   * `JetStreamApiError` (`code` 10174: the stream does not allow atomic
   * batches; 10210: too many batches open on it).
   */
  async startBatch(subject: string, payload?: Payload, opts?: JetStreamPublishOptions): Promise<Batch> {
    const raw = this.raw.atomicBatch(opts?.timeout);
    await raw.send(str(subject, "subject"), encode(payload), rawPublishOptions(opts), true, false);
    return new Batch(raw);
  }

  /** natsjet: an empty `AckBatch` on this connection. */
  ackBatch(opts?: AckBatchOptions): AckBatch {
    return new AckBatch(this, opts);
  }

  /** A `JetStreamManager` with the same options. */
  jetstreamManager(checkAPI?: boolean): Promise<JetStreamManager> {
    return jetstreamManager(this.#nc, { ...this.#opts, checkAPI });
  }

  /** A copy of the options it was made with. */
  getOptions(): JetStreamOptions {
    return { ...this.#opts };
  }
}

/**
 * The wasm's JetStream context on `nc`. A connection made by the
 * `natsjet/core` entry has none (its wasm build lacks JetStream).
 */
function context(nc: NatsConnection, opts: JetStreamOptions): RawJetStream {
  const raw = nc.raw as Partial<RawConnection>;
  if (typeof raw.jetstream !== "function") {
    throw new InvalidOperationError("jetstream: this connection comes from natsjet/core, which has no JetStream; connect with natsjet/jetstream or natsjet");
  }
  return raw.jetstream(opts.apiPrefix, opts.domain, opts.timeout, opts.maxAckInflight);
}

/** A JetStream client on `nc`. */
export function jetstream(nc: NatsConnection, opts: JetStreamOptions = {}): JetStreamClient {
  return new JetStreamClient(nc, opts);
}

/**
 * A JetStream manager on `nc`. Unless `checkAPI` is `false`, asks for the
 * account info first, so it rejects when JetStream is not available.
 */
export async function jetstreamManager(
  nc: NatsConnection,
  opts: JetStreamManagerOptions = {},
): Promise<JetStreamManager> {
  const { checkAPI, ...jsOpts } = opts;
  const raw = context(nc, jsOpts);
  const jsm = new JetStreamManager(nc, raw, jsOpts, () => jetstream(nc, jsOpts));
  if (checkAPI !== false) await jsm.getAccountInfo();
  return jsm;
}
