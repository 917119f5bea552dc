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
//
// And the ceiling of the drain rows: `bareDrain` pulls from the durable in
// batches of 500 (500 kept requested ahead, as the tuned drain), splits each
// frame into MSG lines and payloads (no objects per message) and acks every
// message with an empty PUB to its reply, the acks of a frame sent as one.

import { MIB, OBJ_BUCKET, PULL_BATCH, generatedObject } from "/workloads.mjs";

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

/** `n` messages of `stream`'s `durable` read and acked over `workers` sockets of their own. */
export async function bareDrain(url, stream, durable, n, workers, clock) {
  const conns = await Promise.all(Array.from({ length: workers }, () => open(url)));
  let count = 0;
  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  const start = clock();
  for (const [i, conn] of conns.entries()) {
    drainOn(conn, `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`, `_bare.pull.${i}`, () => {
      if (++count === n) finish();
      return count >= n;
    });
  }
  await finished;
  const run = elapsed(start, clock(), count);
  for (const conn of conns) conn.close();
  return run;
}

/**
 * Pulls on one socket until `counted` (called per message) says all came.
 * `inbox`, the pulls' reply subject, is the socket's own: on a subject
 * shared by the workers' sockets every message would reach each of them.
 */
function drainOn(conn, next, inbox, counted) {
  const latin1 = new TextDecoder("latin1");
  const pull = (batch) => {
    const body = JSON.stringify({ batch, expires: 30e9 });
    conn.send(`PUB ${next} ${inbox} ${body.length}\r\n${body}\r\n`);
  };
  // Messages asked for and not yet come; a pull of the difference at half.
  let ahead = PULL_BATCH;
  let text = "";
  let done = false;
  conn.onFrame((frame) => {
    text += latin1.decode(frame);
    let at = 0;
    let acks = "";
    for (;;) {
      const eol = text.indexOf("\r\n", at);
      if (eol < 0) break;
      if (text.startsWith("PING", at)) {
        acks += "PONG\r\n";
        at = eol + 2;
        continue;
      }
      const msg = text.startsWith("MSG ", at);
      if (!msg && !text.startsWith("HMSG ", at)) {
        at = eol + 2;
        continue;
      }
      // MSG subject sid reply size; HMSG (a status: heartbeat, 408, 409) its sizes last.
      const fields = text.slice(at, eol).split(" ");
      const end = eol + 2 + Number(fields[fields.length - 1]) + 2;
      if (end > text.length) break;
      at = end;
      if (msg) {
        acks += `PUB ${fields[3]} 0\r\n\r\n`;
        ahead--;
        done ||= counted();
      }
    }
    text = text.slice(at);
    if (ahead <= PULL_BATCH / 2 && !done) {
      pull(PULL_BATCH - ahead);
      ahead = PULL_BATCH;
    }
    if (acks) conn.send(acks);
  });
  conn.send(`SUB ${inbox} 1\r\n`);
  pull(PULL_BATCH);
}
