/**
 * An object's bytes between JS streams and the stream's chunks. A put cuts
 * the user's bytes into chunks (`Upload`), hashing them and publishing each
 * through a window of unacknowledged chunks bounded in bytes, so memory
 * stays flat whatever the object's size; a get is a `ReadableStream` of the
 * chunks the wasm's read procedure (the Rust get's) hands out: read by
 * batched direct gets, or fed from an ordered push consumer, and checked so
 * that it errors instead of ending when the size or SHA-256 is wrong.
 */
import { request } from "../jetstream/api.js";
import { ConsumerMessages } from "../jetstream/consumer_messages.js";
import type { JsMsg } from "../jetstream/jsmsg.js";
import type { ConsumerInfo, RawJetStream, RawPubAck, RawPublishOptions } from "../raw.js";
import { Digest, sha256 } from "./digest.js";
import { chunkSubject, inFlightChunks, type Meta, nuid } from "./rules.js";
import type { ObjectProgress, ObjectResult } from "./types.js";

/** Bytes handed to the upload per write of a `putBlob`. */
const SLICE = 1 << 20;
/** Chunks taken from wasm per crossing of a read, at most. */
const BATCH = 64;
/** How long the server keeps a get's consumer once nobody listens (ms). */
const INACTIVE = 30_000;
/** How long a get waits for a pushed chunk before it asks whether one will come (ms). */
const STALL = 5_000;
/** The server's stream-not-found. */
const STREAM_NOT_FOUND = 10059;

/** What a put's `Upload` reports and how long each publish waits for its ack (ms). */
export interface UploadOptions {
  timeout?: number;
  progress?: ObjectProgress;
  /** The object's size, when known, as the progress's total. */
  size?: number;
}

/**
 * An object being put in bucket `bucket`: write its bytes, then `finish`;
 * after a failure, `settle` before its chunks (`subject`) are purged. The
 * progress callback hears of the bytes the stream acknowledged.
 */
export class Upload {
  readonly nuid = nuid();
  readonly subject: string;
  readonly #raw: RawJetStream;
  readonly #opts: UploadOptions;
  readonly #publish: RawPublishOptions;
  readonly #digest = new Digest();
  /** Bytes written that do not fill a chunk yet. */
  readonly #partial: Uint8Array;
  #filled = 0;
  #size = 0;
  #chunks = 0;
  #acked = 0;
  readonly #inFlight: [ack: Promise<RawPubAck>, bytes: number][] = [];
  readonly #max: number;

  constructor(raw: RawJetStream, bucket: string, readonly chunkSize: number, opts: UploadOptions) {
    this.subject = chunkSubject(bucket, this.nuid);
    this.#raw = raw;
    this.#opts = opts;
    this.#publish = { timeout: opts.timeout };
    this.#partial = new Uint8Array(chunkSize);
    this.#max = inFlightChunks(chunkSize);
  }

  /** Adds `data` to the object: every chunk it completes goes out, waiting for room when the window is full. */
  async write(data: Uint8Array): Promise<void> {
    let at = 0;
    if (this.#filled > 0) {
      at = Math.min(data.length, this.chunkSize - this.#filled);
      this.#partial.set(data.subarray(0, at), this.#filled);
      this.#filled += at;
      if (this.#filled < this.chunkSize) return;
      this.#filled = 0;
      await this.#send(this.#partial);
    }
    for (; data.length - at >= this.chunkSize; at += this.chunkSize) await this.#send(data.subarray(at, at + this.chunkSize));
    this.#partial.set(data.subarray(at));
    this.#filled = data.length - at;
  }

  /** Hashes and publishes `chunk`, which is free again on return (the hasher and the publish copy it). */
  async #send(chunk: Uint8Array): Promise<void> {
    if (this.#inFlight.length >= this.#max) await this.#oldest();
    this.#digest.update(chunk);
    this.#size += chunk.length;
    this.#chunks++;
    const ack = this.#raw.publish(this.subject, chunk, this.#publish);
    // Awaited in turn; until then its failure is not an unhandled rejection.
    ack.catch(() => {});
    this.#inFlight.push([ack, chunk.length]);
  }

  /** Waits for the oldest chunk in flight to be acknowledged. */
  async #oldest(): Promise<void> {
    const [ack, bytes] = this.#inFlight.shift()!;
    await ack;
    this.#report(this.#acked + bytes);
  }

  /** `acked` bytes are stored: tell the progress callback if it moved (or of an object without bytes). */
  #report(acked: number): void {
    if (acked <= this.#acked && acked !== 0) return;
    this.#acked = acked;
    try {
      this.#opts.progress?.(acked, this.#opts.size);
    } catch {
      // A callback that throws does not stop the transfer.
    }
  }

  /** Sends the last chunk and waits for every ack: what the meta says of the bytes. */
  async finish(): Promise<Pick<Meta, "nuid" | "size" | "chunks" | "digest">> {
    if (this.#filled > 0) {
      const last = this.#filled;
      this.#filled = 0;
      await this.#send(this.#partial.subarray(0, last));
    }
    while (this.#inFlight.length > 0) await this.#oldest();
    return { nuid: this.nuid, size: this.#size, chunks: this.#chunks, digest: this.#digest.finish() };
  }

  /** The meta is stored: the whole object is. */
  stored(): void {
    this.#report(this.#size);
  }

  /** Waits for the chunks in flight, whatever their acks, so that a purge of `subject` gets them all. */
  async settle(): Promise<void> {
    for (const [ack] of this.#inFlight.splice(0)) await ack.catch(() => {});
  }
}

/** Feeds `rs` to `upload`; the first error (reading or writing) is thrown, the source cancelled. */
export async function writeStream(upload: Upload, rs: ReadableStream<Uint8Array>): Promise<void> {
  const reader = rs.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) if (next.value.length > 0) await upload.write(next.value);
  } catch (e) {
    // The source has nothing more to give once the put failed.
    reader.cancel(e).catch(() => {});
    throw e;
  } finally {
    reader.releaseLock();
  }
}

/** Feeds `data` to `upload` a slice at a time. */
export async function writeBytes(upload: Upload, data: Uint8Array): Promise<void> {
  for (let at = 0; at < data.length; at += SLICE) await upload.write(data.subarray(at, at + SLICE));
}

/**
 * The `data` and `error` of a get of the object `meta` describes in
 * `bucket`: its chunks read and checked by the wasm's procedure, by
 * batched direct gets when `direct`, else fed from an ordered push
 * consumer. A chunk is handed out only once checked, the last one only once
 * the object is whole; each pull reads one batch, so memory stays bounded.
 */
export function chunks(js: RawJetStream, bucket: string, meta: Meta, direct: boolean, progress?: ObjectProgress): Omit<ObjectResult, "info"> {
  // Throws for an object without a digest to check it with.
  const read = js.objectRead(bucket, meta.name, meta.nuid, meta.size, meta.chunks, meta.digest, direct, sha256.host?.());
  let settle!: (e: null) => void;
  let fail!: (e: Error) => void;
  const error = new Promise<Error | null>((resolve, reject) => ((settle = resolve), (fail = reject)));
  // Who reads only `data` sees the error there; this one is not left unhandled.
  error.catch(() => {});
  // Lazy: an object without bytes makes no consumer at all.
  const fed = direct || meta.size === 0 ? undefined : pushed(js, `OBJ_${bucket}`, chunkSubject(bucket, meta.nuid));
  let [received, ended] = [0, false];
  const end = () => {
    if (ended) return;
    ended = true;
    read.stop();
    void fed?.return(undefined).catch(() => {});
  };
  /** The chunks feeding the consumer's next made ready, and whether they are the last; `null`: none left. */
  const feed = async (source: AsyncGenerator<[Uint8Array, number]>): Promise<[unknown[] | null, boolean]> => {
    for (;;) {
      const next = await source.next();
      // The end of the chunks, or the last one: the object must be whole now.
      if (next.done) return [read.feed(undefined, 0), true];
      const items = read.feed(next.value[0], next.value[1]);
      if (items === null || items.length > 0 || next.value[1] === 0) return [items, next.value[1] === 0];
    }
  };
  const data = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const [items, last] = fed ? await feed(fed) : [await read.next(BATCH), false];
        for (const chunk of (items ?? []) as Uint8Array[]) {
          received += chunk.length;
          try {
            progress?.(received, meta.size);
          } catch {
            // A callback that throws does not stop the transfer.
          }
          controller.enqueue(chunk);
        }
        if (items === null || last) {
          end();
          controller.close();
          settle(null);
        }
      } catch (e) {
        end();
        controller.error(e);
        fail(e as Error);
      }
    },
    cancel() {
      end();
      settle(null);
    },
  });
  return { data, error };
}

/**
 * Chunks pushed by an ordered consumer, each with the chunks the consumer
 * holds after it. None pending when it was made means they were purged;
 * chunks that stop coming are asked about after `STALL` ms: a consumer with
 * nothing left to send ends the read (a replace or delete purged the rest),
 * a stream gone ends it in the server's error.
 */
async function* pushed(js: RawJetStream, stream: string, subject: string): AsyncGenerator<[Uint8Array, number]> {
  const ordered = await js.orderedPushConsumer(stream, { filter_subjects: [subject], inactive_threshold: INACTIVE });
  if (ordered.pending === 0) return;
  const messages = new ConsumerMessages(ordered.consume());
  const iterator = messages[Symbol.asyncIterator]();
  let last: [consumer: string, seq: number] = ["", 0];
  try {
    for (;;) {
      const next = iterator.next();
      let got: IteratorResult<JsMsg> | undefined;
      while (!got) {
        got = await Promise.race([next, sleep(STALL)]);
        if (!got && (await ranDry(js, stream, ordered.name, last))) return;
      }
      if (got.done) return;
      const { data, info } = got.value;
      last = [info.consumer, info.deliverySequence];
      yield [data, info.pending];
    }
  } finally {
    messages.stop();
  }
}

/** Whether consumer `name` has nothing to send and sent nothing not received (`last`: the last chunk's consumer and its sequence). */
async function ranDry(js: RawJetStream, stream: string, name: string, [consumer, seq]: [string, number]): Promise<boolean> {
  try {
    const info = await request<ConsumerInfo>(js, "CONSUMER.INFO", stream, name);
    return info.num_pending === 0 && info.delivered.consumer_seq <= (consumer === info.name ? seq : 0);
  } catch (e) {
    if ((e as { code?: number }).code === STREAM_NOT_FOUND) throw e;
    // A consumer being replaced may not answer: ask again later.
    return false;
  }
}

function sleep(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Everything `data` holds, in one array. */
export async function readAll(data: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = data.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    parts.push(next.value);
    size += next.value.length;
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
