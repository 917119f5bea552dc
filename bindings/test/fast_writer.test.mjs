// A publish loop that never yields (`publish` is synchronous) against a real
// server: past the outgoing buffer's bound `publish` throws a typed
// ConnectionError (OUTGOING_BUFFER_FULL) instead of growing the wasm memory
// towards its 4 GiB and faulting; once the loop yields, everything accepted
// arrives, in order, and publishing works again.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ConnectionError, connect } from "natsjet";
import { startServer, waitFor } from "./harness.mjs";

/** `PUB fast 1024\r\n`, the payload and its CRLF. */
const FRAME = 15 + 1024 + 2;

let server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

/** Counts what arrives on `fast`, checking the order of the numbered ones. */
async function counter() {
  // Room for everything the writer may send, should the callbacks fall behind.
  const nc = await connect({ servers: server.url, subscriptionCapacity: 200_000 });
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

/** Publishes numbered 1 KiB messages without yielding until `publish` throws (or `limit` went out). */
function publishUntilRefused(nc, limit) {
  const payload = new Uint8Array(1024);
  const view = new DataView(payload.buffer);
  let accepted = 0;
  try {
    for (; accepted < limit; accepted++) {
      view.setUint32(0, accepted);
      nc.publish("fast", payload);
    }
  } catch (error) {
    return { accepted, error };
  }
  return { accepted };
}

for (const transport of ["url", "wsUrl"]) {
  test(`1,500,000 x 1 KiB without yielding meets the default bound over ${transport}, and loses nothing accepted`, async () => {
    const { nc: reader, seen } = await counter();
    const nc = await connect({ servers: server[transport] });
    const { accepted, error } = publishUntilRefused(nc, 1_500_000);
    assert.ok(error instanceof ConnectionError, `${error}`);
    assert.equal(error.kind, "OUTGOING_BUFFER_FULL");
    const bound = 64 * 1024 * 1024;
    assert.ok(accepted * FRAME >= bound && (accepted - 1) * FRAME < bound, `${accepted} accepted`);
    assert.throws(() => nc.publish("fast", "still full"), { kind: "OUTGOING_BUFFER_FULL" });

    await nc.flush();
    await waitFor(() => seen.count === accepted, 60_000);
    assert.equal(seen.outOfOrder, 0);
    nc.publish("fast", "again");
    await waitFor(() => seen.last === "again", 10_000);
    await nc.close();
    await reader.close();
  });
}

test("outgoingBufferSize sets the bound, and refuses what is not a byte count", async () => {
  const { nc: reader, seen } = await counter();
  const nc = await connect({ servers: server.url, outgoingBufferSize: 1024 * 1024 });
  const { accepted, error } = publishUntilRefused(nc, 1_000_000);
  assert.equal(error?.kind, "OUTGOING_BUFFER_FULL");
  assert.ok(accepted * FRAME >= 1024 * 1024 && (accepted - 1) * FRAME < 1024 * 1024, `${accepted} accepted`);
  await nc.flush();
  await waitFor(() => seen.count === accepted, 30_000);
  assert.equal(seen.outOfOrder, 0);
  await nc.close();
  await reader.close();
  await assert.rejects(connect({ servers: server.url, outgoingBufferSize: -1 }), { kind: "INVALID_ARGUMENT" });
});
