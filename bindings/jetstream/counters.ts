/**
 * Distributed counters (ADR-49, server 2.12; streams with
 * `allow_msg_counter` and `allow_direct`), shaped like orbit.js's
 * `@synadiaorbit/counters`: every subject of the stream is a counter;
 * `increment` sends `Nats-Incr` and resolves with the new total from the
 * ack; `value` / `getCounter` read one counter (its last message, by
 * direct get), `values` / `getCounters` many (wildcards allowed) in one
 * batched direct get. Totals are `bigint`, exact at any size. The rules
 * that read a counter message are the Rust core's
 * (`src/core/jetstream/counter.rs`); `tests/vectors/counters.json` holds
 * the cases both run.
 */
import { InvalidArgumentError, ProtocolError } from "../errors.js";
import { headers, type MsgHdrs } from "../headers.js";
import type { NatsConnection } from "../connection.js";
import { Empty } from "../util.js";
import { jetstream, type JetStreamClient, type JetStreamOptions } from "./client.js";
import { DirectStreamAPI, type StoredMsg } from "./manager.js";

/** The increment header. */
export const CounterIncrementHeader = "Nats-Incr";
/** The per-source breakdown header: `{"<stream>":{"<subject>":"<total>"}}`. */
export const CounterSourcesHeader = "Nats-Counter-Sources";

const DECIMAL = /^[+-]?[0-9]+$/;

/** Refuses an increment that is not an integer, before a byte is written; its `Nats-Incr` text. */
export function incrementText(delta: bigint | number | string): string {
  if (typeof delta === "bigint") return delta.toString();
  if (typeof delta === "number" && Number.isSafeInteger(delta)) return delta.toString();
  if (typeof delta === "string" && DECIMAL.test(delta)) return delta;
  throw InvalidArgumentError.format("delta", `must be an integer (bigint, safe integer number or decimal text): ${String(delta)}`);
}

function decimal(text: unknown, what: string): bigint {
  if (typeof text !== "string" || !DECIMAL.test(text)) throw new ProtocolError(`${what} ${JSON.stringify(text)} is not a decimal integer`);
  return BigInt(text);
}

function json(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ProtocolError(`${what}: ${(e as Error).message}`);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The total in a counter message's body, `{"val":"<decimal>"}`. */
export function parseCounterValue(body: Uint8Array | string): bigint {
  const text = typeof body === "string" ? body : new TextDecoder().decode(body);
  const parsed = json(text, "counter body");
  if (!isObject(parsed)) throw new ProtocolError("a counter body is a JSON object");
  return decimal(parsed.val, "counter value");
}

/** The per-source breakdown in `Nats-Counter-Sources` (an empty map without it). */
export function parseCounterSources(h: MsgHdrs | string | undefined): Map<string, Map<string, bigint>> {
  const text = typeof h === "string" ? h : h?.get(CounterSourcesHeader);
  const sources = new Map<string, Map<string, bigint>>();
  if (!text) return sources;
  const parsed = json(text, CounterSourcesHeader);
  if (!isObject(parsed)) throw new ProtocolError(`${CounterSourcesHeader} is not a JSON object`);
  for (const [source, totals] of Object.entries(parsed)) {
    if (!isObject(totals)) throw new ProtocolError(`${CounterSourcesHeader}: source ${source} is not an object`);
    sources.set(source, new Map(Object.entries(totals).map(([subject, v]) => [subject, decimal(v, "source total")])));
  }
  return sources;
}

/** A counter as its last message holds it (orbit.js's `Counter`, with the per-source breakdown). */
export class Counter {
  /** The total. */
  readonly value: bigint;
  /** The increment the message made (0 without `Nats-Incr`). */
  readonly delta: bigint;
  /** The stream that holds the counter. */
  readonly stream: string;
  /** The counter's subject. */
  readonly subject: string;
  /** The stream sequence of the message that holds it. */
  readonly seq: number;
  /** The server's RFC 3339 time. */
  readonly timestamp: string;
  /** The same time as a `Date` (milliseconds). */
  readonly time: Date;
  /** For each source stream, the totals last taken from its subjects; empty without sources. */
  readonly sources: Map<string, Map<string, bigint>>;

  /** Reads `m`, the last message of a counter in `stream`; rejects a message that is not a counter with a `ProtocolError`. */
  constructor(stream: string, m: StoredMsg) {
    const incr = m.header.get(CounterIncrementHeader);
    this.value = parseCounterValue(m.data);
    this.delta = incr ? decimal(incr, "counter increment") : 0n;
    this.sources = parseCounterSources(m.header);
    this.stream = stream;
    this.subject = m.subject;
    this.seq = m.seq;
    this.timestamp = m.timestamp;
    this.time = m.time;
  }
}

/** The counters of one stream (orbit.js's `Counters`). */
export class Counters {
  /** The stream whose counters these are. */
  readonly stream: string;
  readonly #js: JetStreamClient;
  readonly #direct: DirectStreamAPI;

  /** Made by `NewCounter`, or on a JetStream client. */
  constructor(js: JetStreamClient, stream: string) {
    this.#js = js;
    this.#direct = new DirectStreamAPI(js.raw);
    this.stream = stream;
  }

  /**
   * Adds `delta` (negative to subtract; a `bigint`, a safe integer or
   * decimal text) to counter `name`; resolves with its new total. Rejects
   * with an `InvalidArgumentError` for a delta that is not an integer
   * (nothing sent), and with the server's `JetStreamApiError`: `code` 10168
   * when the stream that takes `name` keeps no counters, 10171 for an
   * increment it cannot read.
   */
  async increment(name: string, delta: bigint | number | string = 1n): Promise<bigint> {
    const h = headers();
    h.set(CounterIncrementHeader, incrementText(delta));
    const ack = await this.#js.publish(name, Empty, { headers: h });
    if (ack.val === undefined) throw new ProtocolError("the ack of an increment has no val");
    return decimal(ack.val, "counter value");
  }

  /** The total of counter `name`, or `null` when it has none yet. */
  async value(name: string): Promise<bigint | null> {
    return (await this.getCounter(name))?.value ?? null;
  }

  /** Counter `name` with its last increment and per-source breakdown, or `null` when it has none yet. */
  async getCounter(name: string): Promise<Counter | null> {
    const m = await this.#direct.getMessage(this.stream, { last_by_subj: name });
    return m ? new Counter(this.stream, m) : null;
  }

  /** The totals of the counters `names` match (wildcards allowed; at most 1024), in stream order. */
  async values(names: string | string[]): Promise<AsyncIterable<bigint>> {
    const counters = await this.getCounters(names);
    return (async function* () {
      for await (const c of counters) yield c.value;
    })();
  }

  /** The counters `names` match (wildcards allowed; at most 1024), in stream order, from one batched direct get (server 2.11+). */
  async getCounters(names: string | string[]): Promise<AsyncIterable<Counter>> {
    const multi_last = Array.isArray(names) ? names : [names];
    const msgs = await this.#direct.getLastMessagesFor(this.stream, { multi_last });
    const stream = this.stream;
    return (async function* () {
      for await (const m of msgs) yield new Counter(stream, m);
    })();
  }
}

/** The counters of stream `stream` on `nc` (orbit.js's `NewCounter`). */
export function NewCounter(nc: NatsConnection, stream: string, opts?: JetStreamOptions): Counters {
  return new Counters(jetstream(nc, opts), stream);
}
