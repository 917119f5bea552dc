// A/B aid for the Object Store in Node: 64 MiB put then get by builds of
// natsjet's package and by nats.js, in one process against one server,
// passes alternating (in reverse order every other pass), medians printed.
// For a change's cost or gain in client CPU per MiB, which a noisy machine
// moves less than MiB/s.
//
//   AB_PKGS="base=target/pkg-base,new=pkg"   builds of the package (dirs holding node.js; default: pkg)
//   AB_NATSJS=0                              leaves nats.js out
//   AB_TRANSPORTS=nats,ws  AB_PASSES=5  BENCH_SCALE as for node.mjs (64 MiB at 1)
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import WebSocket from "ws";
import { wsconnect } from "@nats-io/nats-core";
import { connect as natsJsTcpConnect } from "@nats-io/transport-node";
import { Objm as NatsJsObjm } from "@nats-io/obj";
import { benchServer, nodeClock, scale } from "./common.mjs";
import { objectGet, objectPut } from "./workloads.mjs";

globalThis.WebSocket ??= WebSocket;
const list = (name, fallback) => (process.env[name] ?? fallback).split(",").map((s) => s.trim()).filter(Boolean);
const clients = [];
for (const entry of list("AB_PKGS", "pkg=pkg")) {
  const [name, dir = name] = entry.split("=");
  const natsjet = await import(pathToFileURL(resolve(process.cwd(), dir, "node.js")).href);
  clients.push({ name, connect: (url) => natsjet.connect({ servers: url }), objm: (nc) => new natsjet.Objm(nc) });
}
if (process.env.AB_NATSJS !== "0") {
  const connect = (url) => (url.startsWith("ws") ? wsconnect({ servers: url }) : natsJsTcpConnect({ servers: url }));
  clients.push({ name: "nats.js", connect, objm: (nc) => new NatsJsObjm(nc) });
}
const transports = list("AB_TRANSPORTS", "nats,ws");
const passes = Math.max(1, Number(process.env.AB_PASSES ?? 5));
const mib = scale(64);
const variants = transports.flatMap((t) => clients.map((client) => ({ client, transport: t, label: `${t} ${client.name}` })));

const server = await benchServer();
/** One put then get of `n` MiB by `v`: `{ put, get }`, each `{ n, wallMs, cpuMs }`. */
async function putGet(v, n = mib) {
  await server.noObjBucket();
  const nc = await v.client.connect(v.transport === "ws" ? server.wsUrl : server.url);
  try {
    const objm = v.client.objm(nc);
    return { put: await objectPut(objm, n, nodeClock), get: await objectGet(objm, n, nodeClock) };
  } finally {
    await nc.close();
  }
}

try {
  for (const v of variants) await putGet(v, Math.max(1, Math.floor(mib / 10))); // warm-up
  const runs = new Map(variants.map((v) => [v, []]));
  for (let pass = 0; pass < passes; pass++) {
    for (const v of pass % 2 ? [...variants].reverse() : variants) runs.get(v).push(await putGet(v));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  const cell = (xs, digits) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)})`;
  console.log(`Object Store ${mib} MiB put then get: medians of ${passes} alternating passes (min-max)`);
  console.log(`| ${"variant".padEnd(14)} | op  | ${"MiB/s".padStart(16)} | ${"CPU ms/MiB".padStart(20)} |`);
  console.log(`|${"-".repeat(16)}|-----|${"-".repeat(18)}|${"-".repeat(22)}|`);
  for (const v of variants) {
    for (const op of ["put", "get"]) {
      const rs = runs.get(v).map((r) => r[op]);
      const rate = cell(rs.map((r) => r.n / (r.wallMs / 1000)), 0);
      const cpu = cell(rs.map((r) => r.cpuMs / r.n), 2);
      console.log(`| ${v.label.padEnd(14)} | ${op} | ${rate.padStart(16)} | ${cpu.padStart(20)} |`);
    }
  }
} finally {
  await server.close();
}
