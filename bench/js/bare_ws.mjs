// The ceiling of the browser's Object Store rows: the same bytes moved by a
// bare `WebSocket` speaking just enough NATS text protocol, with nothing a
// client does around them (no parsing beyond the handshake, no digest, no
// acks, no flow control, no ReadableStream). Plain ES module without
// imports: the bench page loads it as it is.
//
// - put: the object's 128 KiB chunks PUB'd to the bucket's chunk subject
//   (stored by the server; one copy per chunk to frame it, as any client
//   makes), then a PING: done at its PONG.
// - get: a push consumer with no acks and no flow control made on the
//   bucket's chunk subjects, its messages only counted (bytes per frame):
//   done once the bytes of every chunk and its MSG line came.

import { MIB, OBJ_BUCKET, generatedObject } from "/workloads.mjs";

const CHUNK = 128 * 1024;
/** Above this many bytes queued in the socket, the put waits (as natsjet's transport). */
const MAX_BUFFERED = 8 << 20;
const encoder = new TextEncoder();

function elapsed(start, end, n) {
  return { n, wallMs: end[0] - start[0], cpuMs: end[1] - start[1] };
}

/** A socket to `url` past CONNECT, with `send(text)`, `onFrame(f)` (binary frames) and `close()`. */
async function open(url) {
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  let onFrame = () => {};
  let info;
  const gotInfo = new Promise((resolve, reject) => {
    info = resolve;
    ws.onerror = () => reject(new Error("bare websocket: error"));
  });
  ws.onmessage = (event) => {
    if (info) {
      info();
      info = undefined;
      return;
    }
    onFrame(event.data);
  };
  await gotInfo;
  ws.send(encoder.encode(`CONNECT {"verbose":false,"pedantic":false,"headers":true,"no_responders":true}\r\n`));
  return {
    ws,
    send: (text) => ws.send(encoder.encode(text)),
    onFrame: (f) => (onFrame = f),
    close: () => ws.close(),
  };
}

/** `mib` MiB (the bench's generated object) PUB'd in chunks to the bucket's chunk subject. */
export async function barePut(url, mib, clock) {
  const conn = await open(url);
  const subject = `$O.${OBJ_BUCKET}.C.bare`;
  const reader = generatedObject(mib).getReader();
  const start = clock();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (let at = 0; at < value.length; at += CHUNK) {
      const piece = value.subarray(at, at + CHUNK);
      const head = encoder.encode(`PUB ${subject} ${piece.length}\r\n`);
      const frame = new Uint8Array(head.length + piece.length + 2);
      frame.set(head);
      frame.set(piece, head.length);
      frame.set([13, 10], head.length + piece.length);
      conn.ws.send(frame);
      while (conn.ws.bufferedAmount > MAX_BUFFERED) await new Promise((r) => setTimeout(r, 10));
    }
  }
  const pong = new Promise((resolve) => conn.onFrame(resolve));
  conn.send("PING\r\n");
  await pong;
  const run = elapsed(start, clock(), mib);
  conn.close();
  return run;
}

/** Every chunk of the bucket (what `barePut` stored) pushed by a consumer without acks or flow control. */
export async function bareGet(url, mib, clock) {
  const conn = await open(url);
  const deliver = "_bare.deliver";
  const chunks = (mib * MIB) / CHUNK;
  // Each chunk's MSG line is longer than this ("MSG _bare.deliver 1 $JS.ACK.…"): the get
  // ends within the last MSG line's bytes of the end.
  const expected = mib * MIB + chunks * 60;
  let bytes = 0;
  const start = clock();
  const done = new Promise((resolve) =>
    conn.onFrame((frame) => {
      bytes += typeof frame === "string" ? frame.length : frame.byteLength;
      if (bytes >= expected) resolve();
    }),
  );
  const config = {
    stream_name: `OBJ_${OBJ_BUCKET}`,
    config: { deliver_subject: deliver, ack_policy: "none", deliver_policy: "all", filter_subject: `$O.${OBJ_BUCKET}.C.>` },
  };
  conn.send(`SUB ${deliver} 1\r\nSUB _bare.reply 2\r\n`);
  const body = encoder.encode(JSON.stringify(config));
  conn.send(`PUB $JS.API.CONSUMER.CREATE.OBJ_${OBJ_BUCKET} _bare.reply ${body.length}\r\n${JSON.stringify(config)}\r\n`);
  await done;
  const run = elapsed(start, clock(), mib);
  conn.close();
  return run;
}
