/**
 * An object's bytes between JS streams and the wasm. A put reads the
 * user's `ReadableStream` one chunk at a time into the wasm's upload
 * (`RawObjectUpload`), each write waiting for room in the window of
 * unacknowledged chunks, so memory stays bounded; a get is a
 * `ReadableStream` of chunks read here and checked in wasm, that errors
 * instead of ending when the size or SHA-256 is wrong.
 */
import { fromRaw } from "../headers.js";
import { request } from "../jetstream/api.js";
import { ConsumerMessages } from "../jetstream/consumer_messages.js";
import type { JsMsg } from "../jetstream/jsmsg.js";
import type { ConsumerInfo, RawJetStream, RawObjectRead, RawObjectUpload } from "../raw.js";
import type { ObjectProgress, ObjectResult } from "./types.js";

/** Bytes handed to the wasm per write of a `putBlob`: its copy stays small. */
const SLICE = 1 << 20;
/** Chunks taken from wasm per crossing of a direct batch, at most. */
const BATCH = 64;
/** How long the server keeps a get's consumer once nobody listens (ms). */
const INACTIVE = 30_000;
/** How long a get waits for a pushed chunk before it asks whether one will come (ms). */
const STALL = 5_000;
/** The server's stream-not-found. */
const STREAM_NOT_FOUND = 10059;

/** Feeds `rs` to `upload`; a read error aborts it (purging what was written) and is thrown. */
export async function writeStream(upload: RawObjectUpload, rs: ReadableStream<Uint8Array>): Promise<void> {
  const reader = rs.getReader();
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (e) {
        await upload.abort();
        throw e;
      }
      if (next.done) return;
      if (next.value.length > 0) await upload.write(next.value);
    }
  } catch (e) {
    // The source has nothing more to give once the put failed.
    reader.cancel(e).catch(() => {});
    throw e;
  } finally {
    reader.releaseLock();
  }
}

/** Feeds `data` to `upload` a slice at a time. */
export async function writeBytes(upload: RawObjectUpload, data: Uint8Array): Promise<void> {
  for (let at = 0; at < data.length; at += SLICE) await upload.write(data.subarray(at, at + SLICE));
}

/**
 * The `data` and `error` of a get of the object `size` bytes long whose
 * chunks Rust checks (`read`), from `stream`: by batched direct gets when
 * Rust says the stream and server have them, else by an ordered push
 * consumer. A chunk is handed out only once checked, the last one only
 * once the object is whole; each pull reads one chunk, so memory stays bounded.
 */
export function chunks(js: RawJetStream, stream: string, read: RawObjectRead, size: number, progress?: ObjectProgress): Omit<ObjectResult, "info"> {
  let settle!: (e: null) => void;
  let fail!: (e: Error) => void;
  const error = new Promise<Error | null>((resolve, reject) => ((settle = resolve), (fail = reject)));
  // Who reads only `data` sees the error there; this one is not left unhandled.
  error.catch(() => {});
  // Lazy: an object without bytes makes no read at all.
  const source = read.batch > 0 ? direct(js, stream, read.subject, read.batch) : pushed(js, stream, read.subject);
  let [received, ended] = [0, false];
  const end = () => {
    if (ended) return;
    ended = true;
    void source.return(undefined).catch(() => {});
    read.free();
  };
  const data = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const next = size === 0 ? ({ done: true } as const) : await source.next();
          if (next.done) read.end();
          const whole = next.done || read.chunk(next.value[0], next.value[1]);
          if (!next.done) {
            received += next.value[0].length;
            try {
              progress?.(received, size);
            } catch {
              // A callback that throws does not stop the transfer.
            }
            if (next.value[0].length > 0) controller.enqueue(next.value[0]);
          }
          if (whole) {
            end();
            controller.close();
            settle(null);
          }
          if (whole || !next.done) return;
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

/** Chunks read by batched direct gets, each with the chunks the stream holds after it. */
async function* direct(js: RawJetStream, stream: string, subject: string, batch: number): AsyncGenerator<[Uint8Array, number]> {
  for (let seq = 1; ; ) {
    const batched = js.directGetBatch(stream, JSON.stringify({ batch, seq, next_by_subj: subject }));
    let [count, pending] = [0, 1];
    try {
      for (let msgs = await batched.nextBatch(BATCH); msgs; msgs = await batched.nextBatch(BATCH)) {
        for (const [, at, , raw, data] of msgs) {
          count++;
          seq = at + 1;
          pending = Number((raw && fromRaw(raw).get("Nats-Num-Pending")) || 1);
          yield [data, pending];
        }
      }
    } finally {
      batched.stop();
    }
    // A batch may end short of what it asked for (the server caps batches): only the count says the stream has no more.
    if (count === 0 || pending === 0) return;
  }
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
    if ((e as { errCode?: number }).errCode === STREAM_NOT_FOUND) throw e;
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
