// Errors as nats.js 3.4 programs test them: `err.code` against
// JetStreamApiCodes and `err.status` on API errors (a refused KV create, a
// stale update, missing streams and consumers), the classes of
// nats-core's `errors`, `name`, `message` and `cause` of request errors.
import { connect } from "@nats-io/transport-node";
import { errors, type NatsConnection } from "@nats-io/nats-core";
import { JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";

/** What a nats.js program reads off an error it caught. */
function describe(err: unknown): string {
  if (err instanceof JetStreamApiError) return `${err.name} code ${err.code} status ${err.status}: ${err.message}`;
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? ` <- ${describe(err.cause)}` : "";
    return `${err.name}: ${err.message}${cause}`;
  }
  return `not an Error: ${err}`;
}

/** `f`'s error as `describe` tells it. */
async function failure(f: () => unknown): Promise<string> {
  try {
    await f();
    return "no error";
  } catch (err) {
    return describe(err);
  }
}

export async function keyValueCodes(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc = await connect({ servers });
  const kv = await new Kvm(nc).create("codes");
  const first = await kv.put("k", "1");
  try {
    await kv.create("k", "2");
  } catch (err) {
    // The usual test of "the key exists" in nats.js.
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence) seen.push("create: exists");
    else seen.push(`create: ${describe(err)}`);
  }
  await kv.put("k", "3");
  try {
    await kv.update("k", "4", first);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence && err.status === 400) {
      seen.push("update: stale");
    } else seen.push(`update: ${describe(err)}`);
  }
  seen.push(await failure(() => kv.update("k", "5", first)));
  await kv.destroy();
  await nc.drain();
  return seen;
}

export async function jetStreamCodes(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc = await connect({ servers });
  const jsm = await jetstreamManager(nc);
  try {
    await jsm.streams.info("MISSING");
  } catch (err) {
    seen.push(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound ? "stream: missing" : describe(err));
  }
  await jsm.streams.add({ name: "CODES", subjects: ["codes.>"] });
  seen.push(await failure(() => jsm.consumers.info("CODES", "missing")));
  seen.push(await failure(() => jsm.streams.add({ name: "CODES", subjects: ["other.>"] })));
  const js = jetstream(nc);
  await js.publish("codes.a", "1");
  seen.push(await failure(() => js.publish("codes.a", "2", { expect: { lastSequence: 7 } })));
  seen.push(await failure(() => js.publish("nothing.stores.this", "x")));
  await jsm.streams.delete("CODES");
  await nc.drain();
  return seen;
}

export async function coreErrors(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc: NatsConnection = await connect({ servers });
  try {
    await nc.request("nobody.home", "x");
  } catch (err) {
    if (err instanceof errors.RequestError && err.isNoResponders()) seen.push(`no responders: ${describe(err)}`);
    else seen.push(describe(err));
  }
  nc.subscribe("silent");
  seen.push(await failure(() => nc.request("silent", "x", { timeout: 100 })));
  for (const bad of [() => nc.publish("bad subject", "x"), () => nc.subscribe("")]) {
    try {
      bad();
    } catch (err) {
      // (natsjet's message says why after nats.js's: compare the start.)
      const start = err instanceof Error && err.message.startsWith("illegal subject:");
      seen.push(err instanceof errors.InvalidSubjectError ? `invalid: ${err.name} ${start}` : describe(err));
    }
  }
  await nc.close();
  try {
    nc.publish("late", "x");
  } catch (err) {
    seen.push(err instanceof errors.ClosedConnectionError ? `closed: ${err.message}` : describe(err));
  }
  seen.push(await failure(() => nc.flush()));
  return seen;
}
