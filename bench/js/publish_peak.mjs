// The memory of a publish loop that never yields (issues 17, 35): `count` x
// 1 KiB published synchronously, then a flush, by natsjet (with its default,
// no bound but the host's, and with the 64 MiB bound it had before) and by nats.js, each
// client in a Node process of its own over nats:// to one local server:
//
//   node bench/js/publish_peak.mjs [count]      (default 1,000,000)
//
// Prints a table: messages accepted before `publish` threw (and its code),
// resident memory after the loop and at its peak, natsjet's wasm memory
// (it never shrinks: its peak) and the time to the flush's end. A child is
// `node bench/js/publish_peak.mjs <natsjet|nats.js> <url> <count> [outgoingBufferSize]`.
import { execFile } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MIB } from "./workloads.mjs";
import { peakMiB, resetPeak, statusMiB, watchWasmMemories } from "./obj_peak.mjs";

const SCRIPT = fileURLToPath(import.meta.url);

async function child(client, url, count, bound) {
  const memories = watchWasmMemories();
  let nc;
  if (client === "natsjet") {
    const { connect } = await import("natsjet");
    nc = await connect({ servers: url, ...(bound ? { outgoingBufferSize: Number(bound) } : {}) });
  } else {
    const { connect } = await import("@nats-io/transport-node");
    nc = await connect({ servers: url });
  }
  const payload = new Uint8Array(1024);
  resetPeak();
  const start = performance.now();
  let accepted = 0;
  let refused = null;
  try {
    for (; accepted < count; accepted++) nc.publish("peak", payload);
  } catch (e) {
    refused = e.kind ?? String(e);
  }
  const afterLoop = statusMiB("VmRSS:");
  await nc.flush();
  const ms = performance.now() - start;
  const wasm = memories.length ? Math.max(...memories.map((m) => m.buffer.byteLength)) / MIB : null;
  console.log(JSON.stringify({ accepted, refused, afterLoop, peak: peakMiB(), wasm, ms }));
  await nc.close();
  process.exit(0);
}

function runChild(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { timeout: 600_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      try {
        resolve(JSON.parse(stdout.trim().split("\n").pop()));
      } catch {
        resolve({ error: (stderr || String(error)).trim().split("\n").filter(Boolean).slice(-1)[0] });
      }
    });
  });
}

async function main(count) {
  const { startServer } = await import("../../bindings/test/harness.mjs");
  const server = await startServer("max_pending: 4GB");
  const runs = [
    ["natsjet", "natsjet (default)", []],
    ["natsjet", "natsjet (bound 64 MiB)", [String(64 * MIB)]],
    ["nats.js", "nats.js", []],
  ];
  const mib = (v) => (typeof v === "number" ? `${v.toFixed(0)} MiB` : "-");
  console.log(`${count} x 1 KiB published without yielding, then a flush (${((count * 1041) / MIB).toFixed(0)} MiB on the wire)`);
  console.log("| client                   | accepted  | refused with         | RSS after loop | peak RSS  | wasm memory | ms     |");
  console.log("|--------------------------|-----------|----------------------|----------------|-----------|-------------|--------|");
  for (const [client, name, extra] of runs) {
    const r = await runChild([client, server.url, String(count), ...extra]);
    if (r.error) {
      console.log(`| ${name.padEnd(24)} | failed: ${r.error}`);
      continue;
    }
    const cells = [name.padEnd(24), String(r.accepted).padStart(9), String(r.refused ?? "-").padEnd(20)];
    cells.push(mib(r.afterLoop).padStart(14), mib(r.peak).padStart(9), mib(r.wasm).padStart(11), r.ms.toFixed(0).padStart(6));
    console.log(`| ${cells.join(" | ")} |`);
  }
  await server.close();
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const [first, url, count, bound] = process.argv.slice(2);
  if (url) await child(first, url, Number(count), bound);
  else await main(Number(first ?? 1_000_000));
}
