// A publish loop that never yields (`publish` is synchronous) against a real
// server. By default natsjet takes what nats.js takes: past 8 MiB what waits
// goes to the socket or WebSocket at once, held by the host outside the wasm
// memory, so a burst past the old 64 MiB bound is accepted and arrives in
// order. Past `outgoingBufferSize` (counting what the host holds unsent), or
// when the host cannot take more, `publish` throws a typed ConnectionError
// (OUTGOING_BUFFER_FULL), never a trap; once the loop yields, everything
// accepted arrives, in order, and publishing works again.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { ConnectionError, connect } from "natsjet";
import { startServer, waitFor } from "./harness.mjs";

/** `PUB fast 1024\r\n`, the payload and its CRLF. */
const FRAME = 15 + 1024 + 2;
const MIB = 1024 * 1024;

const require = createRequire(import.meta.url);
const packageDir = dirname(require.resolve("natsjet/package.json"));
const wasm = require(join(packageDir, "node/natsjet.js"));
const { nodeSocketFactory } = await import(pathToFileURL(join(packageDir, "node/socket.mjs")).href);

let server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

/** Counts what arrives on `fast`, checking the order of the numbered ones. */
async function counter() {
  // Room for everything the writer may send, should the callbacks fall behind.
  const nc = await connect({ servers: server.url, subscriptionCapacity: 200_000, subscriptionCapacityBytes: 512 * MIB });
  const seen = { count: 0, outOfOrder: 0, last: "" };
  nc.subscribe("fast", {
    callback: (_err, m) => {
      if (m.data.length === 1024 && new DataView(m.data.buffer, m.data.byteOffset).getUint32(0) !== seen.count) {
        seen.outOfOrder++;
      }
      if (m.data.length !== 1024) seen.last = m.string();
      seen.count++;
    },
  });
  await nc.flush();
  return { nc, seen };
}

/**
 * Publishes 1 KiB messages numbered from `from` without yielding until
 * `publish` throws (or `limit` went out).
 */
function publishUntilRefused(nc, limit, from = 0) {
  const payload = new Uint8Array(1024);
  const view = new DataView(payload.buffer);
  let accepted = 0;
  try {
    for (; accepted < limit; accepted++) {
      view.setUint32(0, from + accepted);
      nc.publish("fast", payload);
    }
  } catch (error) {
    return { accepted, error };
  }
  return { accepted };
}

/** Flushes, then waits for the counter to have every accepted message, in order, and one more after. */
async function everythingArrives(nc, seen, accepted) {
  await nc.flush();
  await waitFor(() => seen.count === accepted, 60_000);
  assert.equal(seen.outOfOrder, 0);
  nc.publish("fast", "again");
  await waitFor(() => seen.last === "again", 10_000);
}

for (const transport of ["url", "wsUrl"]) {
  test(`a burst past the old 64 MiB bound, without yielding, is taken by default over ${transport} and arrives in order`, async () => {
    const { nc: reader, seen } = await counter();
    const nc = await connect({ servers: server[transport] });
    const count = Math.ceil((80 * MIB) / FRAME);
    const { accepted, error } = publishUntilRefused(nc, count);
    assert.equal(error, undefined);
    assert.equal(accepted, count);
    await everythingArrives(nc, seen, accepted);
    await nc.close();
    await reader.close();
  });

  test(`with the server not reading, outgoingBufferSize counts what the host holds over ${transport}`, async () => {
    const { nc: reader, seen } = await counter();
    const bound = 32 * MIB;
    const nc = await connect({ servers: server[transport], outgoingBufferSize: bound });
    await server.pause();
    let result;
    try {
      result = publishUntilRefused(nc, 200_000);
    } finally {
      server.resume();
    }
    const { accepted, error } = result;
    assert.ok(error instanceof ConnectionError, `${error}`);
    assert.equal(error.kind, "OUTGOING_BUFFER_FULL");
    // At least the bound; past it only what the kernel's socket buffers took.
    assert.ok(accepted * FRAME >= bound && accepted * FRAME < 2 * bound, `${accepted} accepted`);
    await everythingArrives(nc, seen, accepted);
    await nc.close();
    await reader.close();
  });
}

test("a host that cannot take more refuses with OUTGOING_BUFFER_FULL; what it took arrives once it can", async () => {
  let refusing = false;
  wasm.setSocketFactory({
    connect(host, port, events) {
      const socket = nodeSocketFactory.connect(host, port, events);
      const writeView = socket.writeView.bind(socket);
      // As Node throws when it cannot allocate a buffer.
      socket.writeView = (view) => {
        if (refusing) throw new RangeError("Array buffer allocation failed");
        return writeView(view);
      };
      return socket;
    },
  });
  try {
    const { nc: reader, seen } = await counter();
    const nc = await connect({ servers: server.url });
    const first = publishUntilRefused(nc, Math.ceil((20 * MIB) / FRAME));
    assert.equal(first.error, undefined);
    refusing = true;
    const { accepted, error } = publishUntilRefused(nc, 100_000, first.accepted);
    assert.ok(error instanceof ConnectionError, `${error}`);
    assert.equal(error.kind, "OUTGOING_BUFFER_FULL");
    // It refuses once the host refused the bytes waiting past 8 MiB.
    assert.ok(accepted * FRAME < 9 * MIB, `${accepted} accepted`);
    assert.throws(() => nc.publish("fast", "still full"), { kind: "OUTGOING_BUFFER_FULL" });
    refusing = false;
    await everythingArrives(nc, seen, first.accepted + accepted);
    await nc.close();
    await reader.close();
  } finally {
    wasm.setSocketFactory(nodeSocketFactory);
  }
});

test("outgoingBufferSize sets the bound, and refuses what is not a byte count", async () => {
  const { nc: reader, seen } = await counter();
  const nc = await connect({ servers: server.url, outgoingBufferSize: 1024 * 1024 });
  const { accepted, error } = publishUntilRefused(nc, 1_000_000);
  assert.equal(error?.kind, "OUTGOING_BUFFER_FULL");
  assert.ok(accepted * FRAME >= 1024 * 1024 && (accepted - 1) * FRAME < 1024 * 1024, `${accepted} accepted`);
  await nc.flush();
  await waitFor(() => seen.count === accepted, 60_000);
  assert.equal(seen.outOfOrder, 0);
  await nc.close();
  await reader.close();
  await assert.rejects(connect({ servers: server.url, outgoingBufferSize: -1 }), { kind: "INVALID_ARGUMENT" });
});
