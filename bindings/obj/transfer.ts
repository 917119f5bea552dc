/**
 * An object's bytes between JS streams and the stream's chunks, through
 * the core's procedures (the Rust store's): a put feeds the user's bytes to
 * the wasm's put procedure as it asks for them, so memory stays flat
 * whatever the object's size; a get is a `ReadableStream` of the chunks the
 * wasm's read procedure hands out: read by batched direct gets, or fed from
 * an ordered push consumer, and checked so that it errors instead of ending
 * when the size or SHA-256 is wrong.
 */
import { request } from "../jetstream/api.js";
import { ConsumerMessages } from "../jetstream/consumer_messages.js";
import type { JsMsg } from "../jetstream/jsmsg.js";
import type { ConsumerInfo, RawJetStream } from "../raw.js";
import { sha256 } from "./digest.js";
import { chunkSubject, type Found, type Meta, metaJson, readMeta } from "./rules.js";
import type { ObjectProgress, ObjectResult } from "./types.js";

/** Bytes handed to a put per feed of a `putBlob`. */
const SLICE = 1 << 20;
/** Chunks taken from wasm per crossing of a read, at most. */
const BATCH = 64;
/** How long the server keeps a get's consumer once nobody listens (ms). */
const INACTIVE = 30_000;
/** How long a get waits for a pushed chunk before it asks whether one will come (ms). */
const STALL = 5_000;
/** The server's stream-not-found. */
const STREAM_NOT_FOUND = 10059;

/** What a put is told besides its bytes. */
export interface WriteOptions {
  /** Store the meta only if the name's is at this revision (0: none). */
  previousRevision?: number;
  /** The bucket's stream allows fast batches. */
  fast: boolean;
  /** How long replies may stop coming (ms); the JetStream timeout by default. */
  timeout?: number;
  progress?: ObjectProgress;
  /** The object's size, when known, as the progress's total. */
  size?: number;
}

/** The next bytes of a put, or `null` at their end. */
export type Source = () => Promise<Uint8Array | null>;

/**
 * Puts the object `meta` describes in `bucket`, replacing `old`, with the
 * bytes `source` gives: the wasm's put procedure (the Rust put's) chunks,
 * hashes and publishes them, stores the meta and purges what it replaced;
 * a put that fails purges its chunks. The stored meta and its revision.
 */
export async function write(js: RawJetStream, bucket: string, meta: Meta, old: Found | null, opts: WriteOptions, source: Source): Promise<[Meta, number]> {
  const shadowed = old?.shadowed;
  const oldMeta = old ? new TextDecoder().decode(old.json) : undefined;
  const put = js.objectWrite(bucket, metaJson(meta), opts.previousRevision, opts.fast, opts.timeout, oldMeta, old?.subject, shadowed?.subject, shadowed?.nuid, sha256.host?.());
  let failed: unknown;
  try {
    for (let items = await put.next(BATCH); items !== null; ) {
      let want = false;
      for (const item of items) {
        if (item === true) want = true;
        else if (typeof item === "number") report(opts, item);
        else {
          const [json, revision] = item as [Uint8Array, number];
          return [readMeta(json), revision];
        }
      }
      if (!want) {
        items = await put.next(BATCH);
        continue;
      }
      let data: Uint8Array | null;
      try {
        data = await source();
      } catch (e) {
        // The procedure purges what it wrote, then ends; the reader's error is the put's.
        failed = e;
        put.fail(String((e as Error)?.message ?? e));
        items = await put.next(BATCH);
        continue;
      }
      items = put.feed(data ?? undefined, 0);
      if (items !== null && items.length === 0) items = await put.next(BATCH);
    }
  } catch (e) {
    throw failed ?? e;
  } finally {
    put.stop();
  }
  throw failed ?? new Error("the put ended without storing the object");
}

/** `acked` bytes are stored: the progress callback hears it. */
function report(opts: WriteOptions, acked: number): void {
  try {
    opts.progress?.(acked, opts.size);
  } catch {
    // A callback that throws does not stop the transfer.
  }
}

/** The bytes of `rs`, one piece at a time; cancelled once the put no longer reads. */
export function streamSource(rs: ReadableStream<Uint8Array>): [Source, () => void] {
  const reader = rs.getReader();
  const source = async (): Promise<Uint8Array | null> => {
    for (;;) {
      const next = await reader.read();
      if (next.done) return null;
      if (next.value.length > 0) return next.value;
    }
  };
  const end = () => {
    reader.cancel().catch(() => {});
    reader.releaseLock();
  };
  return [source, end];
}

/** The bytes of `data`, a slice at a time. */
export function bytesSource(data: Uint8Array): Source {
  let at = 0;
  return async () => {
    if (at >= data.length) return null;
    const slice = data.subarray(at, at + SLICE);
    at += SLICE;
    return slice;
  };
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
