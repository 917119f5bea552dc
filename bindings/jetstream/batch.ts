/**
 * nats.js 3.4's atomic batch (`js.startBatch` → `add` → `commit`), over
 * the Rust batch: the core numbers the messages, writes their batch
 * headers, refuses what would fail the whole batch before sending it, and
 * reads the server's answers.
 */
import type { RawAtomicBatch, RawPubAck } from "../raw.js";
import { encode, type Payload } from "../msg.js";
import { str } from "../names.js";
import { rawPublishOptions, type JetStreamPublishOptions, type PubAck } from "./client.js";

/**
 * Options of a message in a batch: a publish's, without `retries` (a
 * batch's messages are sent once) and without `expect.lastMsgID`, which
 * batches do not support. `expect.lastSequence` only on the first message
 * (ADR-50); `msgID`s are deduplicated (server 2.12.1).
 */
export type BatchMessageOptions = Omit<JetStreamPublishOptions, "retries" | "expect"> & {
  /** What the stream must look like, checked when the batch is committed (no `lastMsgID`). */
  expect?: Omit<NonNullable<JetStreamPublishOptions["expect"]>, "lastMsgID">;
};

/** A message that waits for the server's acknowledgement (only on some: each is a round trip). */
export type BatchMessageOptionsWithReply = BatchMessageOptions & {
  /** `true`: `add` resolves once the server has staged the message. */
  ack: boolean;
};

/** The stream's ack of a committed batch: its last message's, with the batch's id and size. */
export interface BatchAck extends PubAck {
  /** The batch's id. */
  batch: string;
  /** How many messages the batch stored. */
  count: number;
}

/** @internal The `BatchAck` of a commit's raw ack (atomic and fast batches). */
export async function batchAck(raw: Promise<RawPubAck | undefined> | undefined): Promise<BatchAck> {
  const [stream, seq, duplicate, domain, batch = "", count = 0] = (await raw)!;
  const ack: BatchAck = { stream, seq, duplicate, batch, count };
  if (domain !== undefined) ack.domain = domain;
  return ack;
}

/**
 * An atomic batch, made by `js.startBatch`. The server stores its messages
 * when `commit` is answered, all together; a batch that fails (a refused
 * message, an expectation that does not hold at the commit, more messages
 * than the server allows, idle for 10 s) stores nothing, and its later
 * calls throw an `InvalidOperationError` ("batch publisher is done").
 */
export class Batch {
  readonly #raw: RawAtomicBatch;
  #count = 1;

  /** @internal Made by `JetStreamClient.startBatch`, once its first message is sent. */
  constructor(raw: RawAtomicBatch) {
    this.#raw = raw;
  }

  /** The batch's `Nats-Batch-Id`. */
  get id(): string {
    return this.#raw.id;
  }

  /** Messages sent so far, the first one included. */
  get count(): number {
    return this.#count;
  }

  /** Sends the next message without waiting. */
  add(subj: string, payload?: Payload, opts?: BatchMessageOptions): void;
  /** Sends the next message and resolves once the server has staged it. */
  add(subj: string, payload: Payload | undefined, opts: BatchMessageOptionsWithReply): Promise<void>;
  add(subj: string, payload?: Payload, opts?: BatchMessageOptions & { ack?: boolean }): void | Promise<void> {
    const ack = opts?.ack === true;
    const sent = this.#send(subj, payload, opts, ack, false);
    return ack ? sent?.then(() => undefined) : undefined;
  }

  /** Sends the last message and resolves with the stream's ack of the whole batch. */
  async commit(subj: string, payload?: Payload, opts?: BatchMessageOptions): Promise<BatchAck> {
    return batchAck(this.#send(subj, payload, opts, true, true));
  }

  /**
   * natsjet (nats.js has none): ends the batch without storing another
   * message (server 2.14's end-of-batch commit, `Nats-Batch-Commit: eob`)
   * and resolves with the stream's ack of the whole batch; its `seq` is the
   * last stored message's.
   */
  async commitEob(): Promise<BatchAck> {
    return batchAck(this.#raw.commitEob());
  }

  #send(subj: string, payload: Payload | undefined, opts: BatchMessageOptions | undefined, ack: boolean, commit: boolean) {
    const sent = this.#raw.send(str(subj, "subject"), encode(payload), rawPublishOptions(opts), ack, commit);
    this.#count++;
    return sent;
  }
}
