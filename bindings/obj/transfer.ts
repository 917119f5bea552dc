/**
 * An object's bytes between JS streams and the wasm. A put reads the
 * user's `ReadableStream` one chunk at a time into the wasm's upload
 * (`RawObjectUpload`), each write waiting for room in the window of
 * unacknowledged chunks, so memory stays bounded; a get is a
 * `ReadableStream` pulled from the wasm's reader of chunks, a batch per
 * pull, that errors instead of ending when the size or SHA-256 is wrong.
 */
import type { RawObjectUpload, RawReader } from "../raw.js";
import type { ObjectResult } from "./types.js";

/** Bytes handed to the wasm per write of a `putBlob`: its copy stays small. */
const SLICE = 1 << 20;
/** Chunks taken from wasm per pull, at most (a batch also stops at about 1 MiB). */
const BATCH = 64;

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

/** The `data` and `error` of a get whose chunks `reader` reads. */
export function chunks(reader: RawReader): Omit<ObjectResult, "info"> {
  let settle!: (e: null) => void;
  let fail!: (e: Error) => void;
  const error = new Promise<Error | null>((resolve, reject) => ((settle = resolve), (fail = reject)));
  // Who reads only `data` sees the error there; this one is not left unhandled.
  error.catch(() => {});
  const data = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const batch = await reader.nextBatch(BATCH);
        if (batch === null) {
          controller.close();
          settle(null);
        } else {
          controller.enqueue(batch[0]);
        }
      } catch (e) {
        controller.error(e);
        fail(e as Error);
      }
    },
    cancel() {
      reader.stop();
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
