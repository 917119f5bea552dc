/**
 * An object's bytes between JS streams and the stream's chunks, through
 * the core's procedures (the Rust store's): a put feeds the user's bytes to
 * the wasm's put procedure as it asks for them, so memory stays flat
 * whatever the object's size; a get is a `ReadableStream` of the chunks the
 * wasm's read procedure hands out: read by batched direct gets, or pushed by
 * an ordered push consumer (the procedure decides when chunks that stopped
 * coming are over), and checked so that it errors instead of ending when the
 * size or SHA-256 is wrong.
 */
import type { RawJetStream } from "../raw.js";
import { sha256 } from "./digest.js";
import { type Found, type Meta, metaJson, readMeta } from "./rules.js";
import type { ObjectProgress, ObjectResult } from "./types.js";

/** Bytes handed to a put per feed of a `putBlob`. */
const SLICE = 1 << 20;
/** Chunks taken from wasm per crossing of a read, at most. */
const BATCH = 64;

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
      items = put.feed(data ?? undefined);
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
 * batched direct gets when `direct`, else pushed by an ordered push
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
  let received = 0;
  const data = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const items = await read.next(BATCH);
        for (const chunk of (items ?? []) as Uint8Array[]) {
          received += chunk.length;
          try {
            progress?.(received, meta.size);
          } catch {
            // A callback that throws does not stop the transfer.
          }
          controller.enqueue(chunk);
        }
        if (items === null) {
          read.stop();
          controller.close();
          settle(null);
        }
      } catch (e) {
        read.stop();
        controller.error(e);
        fail(e as Error);
      }
    },
    cancel() {
      read.stop();
      settle(null);
    },
  });
  return { data, error };
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
