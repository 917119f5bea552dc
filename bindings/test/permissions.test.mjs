// A request the account's permissions refuse is never answered: the server
// only sends `-ERR 'Permissions Violation for Publish to "SUBJECT"'`. Through
// the built package against a real nats-server, the pending request to that
// subject rejects at once, as nats.js's, with a RequestError caused by a
// PermissionViolationError (operation, subject), long before its timeout; the connection stays up and
// other requests are untouched. Core requests, a JetStream consumer create
// and a KV put alike.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { connect, jetstreamManager, Kvm, PermissionViolationError, RequestError } from "natsjet";
import { nextMsg, startAccountsServer } from "./harness.mjs";

/** Far longer than a refusal takes; a refusal must come within a third of it. */
const TIMEOUT = 30000;
const REFUSED_WITHIN = 10000;

let server, nc;
before(async () => {
  server = await startAccountsServer();
  nc = await connect({ servers: server.url, user: "limited", pass: "pw" });
});
after(async () => {
  await nc?.close();
  await server?.close();
});

/** `promise`'s rejection, a RequestError caused by a PermissionViolationError for a publish to `subject`, within REFUSED_WITHIN. */
async function refused(promise, subject) {
  const started = Date.now();
  const e = await promise.then(
    () => assert.fail("not refused"),
    (e) => e,
  );
  const took = Date.now() - started;
  assert.ok(e instanceof RequestError, String(e));
  assert.equal(e.kind, "PERMISSIONS_VIOLATION");
  const { cause } = e;
  assert.ok(cause instanceof PermissionViolationError, String(cause));
  assert.deepEqual([cause.name, cause.kind, cause.operation, cause.subject], ["PermissionViolationError", "PERMISSIONS_VIOLATION", "publish", subject]);
  assert.equal(e.message, cause.message);
  assert.ok(took < REFUSED_WITHIN, `refused after ${took} ms`);
}

test("a refused request rejects at once; another pending request and the connection are untouched", async () => {
  const service = nc.subscribe("svc.echo");
  await nc.flush();
  const pending = nc.request("svc.echo", "later", { timeout: TIMEOUT });
  const asked = await nextMsg(service);

  await refused(nc.request("secret.plans", "x", { timeout: TIMEOUT }), "secret.plans");

  let settled = false;
  pending.then(() => (settled = true), () => (settled = true));
  await nc.flush();
  assert.equal(settled, false, "the other request still waits");
  asked.respond("answer");
  assert.equal((await pending).string(), "answer");
  assert.equal(nc.isClosed(), false);
  await refused(nc.request("secret.plans", "y", { timeout: TIMEOUT }), "secret.plans");
  service.unsubscribe();
});

test("a refused consumer create and KV put reject typed, not by timeout", async () => {
  const jsm = await jetstreamManager(nc, { timeout: TIMEOUT });
  await jsm.streams.add({ name: "ORDERS", subjects: ["orders.>"] });
  await refused(jsm.consumers.add("ORDERS", { name: "locked", ack_policy: "explicit" }), "$JS.API.CONSUMER.CREATE.ORDERS.locked");
  await refused(
    jsm.consumers.add("ORDERS", { durable_name: "locked", ack_policy: "explicit" }),
    "$JS.API.CONSUMER.CREATE.ORDERS.locked",
  );
  await jsm.consumers.add("ORDERS", { durable_name: "open", ack_policy: "explicit" });

  const kv = await new Kvm(nc).create("prefs");
  await refused(kv.put("locked", "1"), "$KV.prefs.locked");
  assert.equal(await kv.put("open", "1"), 1);
});
