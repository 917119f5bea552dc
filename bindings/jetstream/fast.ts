/**
 * Fast ingest (ADR-50 fast batches, nats-server 2.14, streams with
 * `allow_batched`), shaped like orbit.go's `jetstreamext` fast publisher
 * (nats.js keeps its own internal): `NewFastPublisher(js, opts)` → `add`
 * (each resolves once the message is sent and the flow window has room,
 * with its place in the batch and the highest place the server
 * acknowledged), then `commit` (a last message) or `close` (an end of
 * batch that stores none), resolving with the batch's ack. The window, the
 * reply subjects and the server's answers are the Rust core's.
 */
import type { RawFastPublisher, RawPubAck } from "../raw.js";
import { encode, type Payload } from "../msg.js";
import { str } from "../names.js";
import { batchAck, type BatchAck, type BatchMessageOptions } from "./batch.js";
import { rawPublishOptions, type JetStreamClient } from "./client.js";

/** How a fast batch runs (orbit.go's `FastPublishFlowControl` and options). */
export interface FastPublisherOptions {
  /** A flow ack every this many messages (default 10; the server may change it). */
  flow?: number;
  /** Flow intervals that may be unacknowledged before `add` waits (default 2). */
  maxOutstandingAcks?: number;
  /** Milliseconds an ack is awaited (default: the JetStream timeout). */
  ackTimeout?: number;
  /** Go on when the stream lost messages instead of failing the batch (default false). */
  continueOnGap?: boolean;
}

/** The progress `add` reports. */
export interface FastPubAck {
  /** This message's place in the batch (from 1). */
  batchSeq: number;
  /** The highest place the server acknowledged: unless going on over gaps, all up to it are stored. */
  ackSeq: number;
}

/**
 * A fast batch. Await each `add` before the next: the first resolves once
 * the server took the batch (a stream without `allow_batched` rejects it
 * with a `JetStreamApiError`, `code` 10205), later ones once the window has
 * room. After an error, the commit or `close`, calls reject with an
 * `InvalidOperationError`; a batch idle for 10 s is abandoned by the server
 * (its next call rejects with `code` 10208).
 */
export class FastPublisher {
  readonly #raw: RawFastPublisher;
  /** The last call: each runs once the one before it settled, in call order. */
  #last: Promise<unknown> = Promise.resolve();

  /** Made by `NewFastPublisher`. */
  constructor(raw: RawFastPublisher) {
    this.#raw = raw;
  }

  /** Sends the next message. */
  async add(subj: string, payload?: Payload, opts?: BatchMessageOptions): Promise<FastPubAck> {
    const [batchSeq, ackSeq] = (await this.#send(str(subj, "subject"), payload, opts, false)) as [number, number];
    return { batchSeq, ackSeq };
  }

  /** Sends the last message and resolves with the batch's ack. */
  async commit(subj: string, payload?: Payload, opts?: BatchMessageOptions): Promise<BatchAck> {
    return batchAck(this.#send(str(subj, "subject"), payload, opts, true) as Promise<RawPubAck>);
  }

  /** Ends the batch without storing another message (server 2.14) and resolves with its ack. */
  async close(): Promise<BatchAck> {
    return batchAck(this.#send(undefined, undefined, undefined, true) as Promise<RawPubAck>);
  }

  #send(subj: string | undefined, payload: Payload | undefined, opts: BatchMessageOptions | undefined, last: boolean) {
    const [data, raw] = [encode(payload), rawPublishOptions(opts)];
    const call = this.#last.then(() => this.#raw.send(subj, data, raw, last));
    this.#last = call.catch(() => undefined);
    return call;
  }
}

/** A fast publisher on `js`'s connection (orbit.go's `NewFastPublisher`). */
export function NewFastPublisher(js: JetStreamClient, opts: FastPublisherOptions = {}): FastPublisher {
  const { flow, maxOutstandingAcks, ackTimeout, continueOnGap } = opts;
  return new FastPublisher(js.raw.fastPublisher(flow, maxOutstandingAcks, ackTimeout, continueOnGap));
}
