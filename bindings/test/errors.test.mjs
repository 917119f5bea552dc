// natsjet's errors are nats.js v3's classes too: each class is produced by
// a real scenario against a real server and checked with `instanceof`
// (NatsError and the nats.js class), its nats.js `name` and natsjet's own
// `kind`. errors_table.test.mjs holds the same situations against nats.js.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  AuthorizationError,
  ClosedConnectionError,
  ConnectionError,
  ConsumerNotFoundError,
  DrainingConnectionError,
  InvalidArgumentError,
  InvalidOperationError,
  InvalidSubjectError,
  JetStreamApiCodes,
  JetStreamApiError,
  JetStreamError,
  JetStreamNotEnabled,
  JetStreamStatusError,
  NatsError,
  NoRespondersError,
  PermissionViolationError,
  ProtocolError,
  RequestError,
  StreamNotFoundError,
  TimeoutError,
  UserAuthenticationExpiredError,
  connect,
  isMessageNotFound,
  jetstreamManager,
} from "natsjet";
import * as natsjet from "natsjet";
import { caught, startAccountsServer, startServer, waitFor } from "./harness.mjs";

let server;
before(async () => {
  server = await startAccountsServer();
});
after(() => server.close());

const conn = (user = "js") => connect({ servers: server.wsUrl, user, pass: user === "limited" ? "pw" : user });

/** `e` is a NatsError of `kind`, an instance of `Class` and named as nats.js names it. */
function is(e, Class, kind) {
  assert.ok(e instanceof Error && e instanceof NatsError, `a NatsError: ${e}`);
  assert.ok(e instanceof Class, `a ${Class.name}: ${e} (${Object.getPrototypeOf(e).constructor.name})`);
  assert.equal(e.name, Class === NoRespondersError ? "NoResponders" : Class.name);
  assert.equal(e.kind, kind, e.message);
  return true;
}

describe("core errors", () => {
  test("a request nobody answers in time rejects with a TimeoutError", async () => {
    const nc = await conn();
    nc.subscribe("errors.silent");
    await nc.flush();
    const e = await caught(() => nc.request("errors.silent", "", { timeout: 100 }));
    is(e, TimeoutError, "TIMEOUT");
    assert.ok(!(e instanceof RequestError));
    await nc.close();
  });

  test("no responders is a RequestError caused by a NoRespondersError with the subject", async () => {
    const nc = await conn();
    const e = await caught(() => nc.request("errors.nobody", "x"));
    is(e, RequestError, "NO_RESPONDERS");
    assert.ok(e.isNoResponders() && !(e instanceof NoRespondersError) && !(e instanceof TimeoutError));
    is(e.cause, NoRespondersError, "NO_RESPONDERS");
    assert.equal(e.cause.subject, "errors.nobody");
    assert.equal(e.message, "no responders: 'errors.nobody'");
    await nc.close();
  });

  test("calls on a closed connection throw a ClosedConnectionError", async () => {
    const nc = await conn();
    await nc.close();
    assert.throws(() => nc.publish("late", "x"), (e) => is(e, ClosedConnectionError, "CLOSED"));
    assert.throws(() => nc.subscribe("late"), (e) => is(e, ClosedConnectionError, "CLOSED"));
    is(await caught(() => nc.request("late")), ClosedConnectionError, "CLOSED");
    is(await caught(() => nc.flush()), ClosedConnectionError, "CLOSED");
  });

  test("a denied publish or queue subscription is a PermissionViolationError with operation, subject and queue", async () => {
    const nc = await conn("limited");
    const errors = [];
    const watching = (async () => {
      for await (const s of nc.status()) if (s.type === "error") errors.push(s.error);
    })();
    nc.publish("secret.plans", "x");
    await nc.flush();
    await waitFor(() => errors.length === 1);
    is(errors[0], PermissionViolationError, "PERMISSIONS_VIOLATION");
    assert.equal(errors[0].operation, "publish");
    assert.equal(errors[0].subject, "secret.plans");
    assert.equal(errors[0].queue, undefined);

    nc.subscribe("jobs.x", { queue: "workers" });
    await nc.flush();
    await waitFor(() => errors.length === 2);
    is(errors[1], PermissionViolationError, "PERMISSIONS_VIOLATION");
    assert.equal(errors[1].operation, "subscription");
    assert.equal(errors[1].subject, "jobs.x");
    assert.equal(errors[1].queue, "workers");
    await nc.close();
    await watching;
  });

  test("a flush in flight when the connection drops rejects with a RequestError", async () => {
    const frozen = await startServer();
    const nc = await connect({ servers: frozen.wsUrl, maxReconnectAttempts: 1, reconnectTimeWait: 50 });
    await frozen.pause(); // the PING goes out, its PONG never comes
    const flushed = caught(() => nc.flush());
    await new Promise((resolve) => setTimeout(resolve, 50));
    await frozen.close();
    const e = await flushed;
    is(e, RequestError, "DISCONNECTED");
    assert.ok(!e.isNoResponders());
    assert.equal(e.message, "connection disconnected");
    await nc.close();
  });

  test("wrong credentials are an AuthorizationError", async () => {
    const e = await caught(() => connect({ servers: server.wsUrl, user: "js", pass: "wrong" }));
    is(e, AuthorizationError, "AUTHORIZATION_VIOLATION");
    assert.ok(!(e instanceof UserAuthenticationExpiredError));
  });

  test("a server nobody listens on is a ConnectionError", async () => {
    const e = await caught(() => connect({ servers: "ws://127.0.0.1:1", timeout: 1000 }));
    assert.ok(e instanceof NatsError && e instanceof ConnectionError, `${e}`);
  });

  test("bad subjects and arguments are InvalidSubjectError and InvalidArgumentError; misuse is InvalidOperationError", async () => {
    const nc = await conn();
    assert.throws(() => nc.publish("bad subject", "x"), (e) => is(e, InvalidSubjectError, "INVALID_SUBJECT"));
    is(await caught(() => nc.request("", "x")), InvalidSubjectError, "INVALID_SUBJECT");
    assert.throws(() => nc.publish("ok", 42), (e) => is(e, InvalidArgumentError, "INVALID_ARGUMENT"));
    const big = new Uint8Array(nc.info.max_payload + 1);
    assert.throws(() => nc.publish("ok", big), (e) => is(e, InvalidArgumentError, "PAYLOAD_TOO_LARGE"));
    const sub = nc.subscribe("errors.cb", { callback: () => {} });
    is(await caught(() => sub[Symbol.asyncIterator]().next()), InvalidOperationError, "INVALID_ARGUMENT");
    assert.ok(!(new InvalidOperationError("x") instanceof InvalidArgumentError), "as nats.js, unrelated");
    await nc.close();
  });

  test("misuse refused in Rust (reconnecting while draining) is an InvalidOperationError", async () => {
    const nc = await conn();
    const draining = nc.drain();
    const e = await caught(() => nc.reconnect());
    is(e, InvalidOperationError, "INVALID_ARGUMENT");
    assert.match(e.message, /draining/);
    await draining;
  });

  test("the classes construct as nats.js's do", () => {
    is(new TimeoutError(), TimeoutError, "TIMEOUT");
    const nr = new NoRespondersError("q");
    assert.deepEqual([nr.subject, nr.message, nr.name], ["q", "no responders: 'q'", "NoResponders"]);
    assert.ok(!(nr instanceof RequestError));
    assert.ok(new RequestError("x", { cause: new NoRespondersError("q") }).isNoResponders());
    const pv = new PermissionViolationError("denied", "subscription", "a", "q");
    assert.deepEqual([pv.operation, pv.subject, pv.queue, pv.kind], ["subscription", "a", "q", "PERMISSIONS_VIOLATION"]);
    is(new ClosedConnectionError(), ClosedConnectionError, "CLOSED");
    is(new DrainingConnectionError(), DrainingConnectionError, "CLOSED");
    is(new ProtocolError("x"), ProtocolError, "PROTOCOL");
    is(new InvalidSubjectError("a b"), InvalidSubjectError, "INVALID_SUBJECT");
    const status = new JetStreamStatusError("consumer deleted", 409);
    assert.ok(status instanceof JetStreamError);
    assert.deepEqual([status.code, status.kind, status.name], [409, "CONSUMER_STATUS", "JetStreamStatusError"]);
    const api = new StreamNotFoundError({ code: 404, err_code: 10059, description: "stream not found" });
    assert.deepEqual(api.apiError(), { code: 404, err_code: 10059, description: "stream not found" });
    assert.deepEqual([api.message, api.code, api.status, api.kind], ["stream not found", 10059, 404, "JETSTREAM"]);
    assert.equal(StreamNotFoundError.fromMessage("gone").apiError().err_code, JetStreamApiCodes.StreamNotFound);
    assert.equal(InvalidArgumentError.format(["a", "b"], "are bad").message, "'a','b' are bad");
  });
});

describe("JetStream errors", () => {
  test("a missing stream is a StreamNotFoundError, with nats.js's apiError()", async () => {
    const nc = await conn();
    const jsm = await jetstreamManager(nc);
    const e = await caught(() => jsm.streams.info("NO_SUCH_STREAM"));
    is(e, StreamNotFoundError, "JETSTREAM");
    assert.ok(e instanceof JetStreamApiError && !(e instanceof ConsumerNotFoundError));
    assert.deepEqual(e.apiError(), { code: 404, err_code: 10059, description: "stream not found" });
    assert.equal(e.status, 404);
    assert.equal(e.code, JetStreamApiCodes.StreamNotFound);
    assert.equal(isMessageNotFound(e), false);
    // Found by the TS layer, not the server: the same class.
    const found = await caught(() => jsm.streams.find("nobody.stores.this"));
    is(found, StreamNotFoundError, "JETSTREAM");
    assert.equal(found.apiError().err_code, 10059);
    await nc.close();
  });

  test("a missing consumer is a ConsumerNotFoundError", async () => {
    const nc = await conn();
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "ERR_C", subjects: ["err.c"] });
    const e = await caught(() => jsm.consumers.info("ERR_C", "nope"));
    is(e, ConsumerNotFoundError, "JETSTREAM");
    assert.ok(e instanceof JetStreamApiError && !(e instanceof StreamNotFoundError));
    assert.deepEqual(e.apiError(), { code: 404, err_code: JetStreamApiCodes.ConsumerNotFound, description: "consumer not found" });
    await jsm.streams.delete("ERR_C");
    await nc.close();
  });

  test("an account without JetStream gets JetStreamNotEnabled, caused by the API's error", async () => {
    const nc = await conn("nojs");
    const e = await caught(() => jetstreamManager(nc));
    is(e, JetStreamNotEnabled, "JETSTREAM");
    assert.ok(!(e instanceof JetStreamApiError), "as nats.js, not an API error");
    is(e.cause, JetStreamApiError, "JETSTREAM");
    assert.equal(e.cause.code, JetStreamApiCodes.JetStreamNotEnabledForAccount);
    await nc.close();
  });

  test("other API errors are JetStreamApiErrors with their err_code", async () => {
    const nc = await conn();
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "ERR_API", subjects: ["err.api"] });
    const e = await caught(() => jsm.streams.add({ name: "ERR_API", subjects: ["err.other"] }));
    is(e, JetStreamApiError, "JETSTREAM");
    assert.ok(!(e instanceof StreamNotFoundError) && !(e instanceof ConsumerNotFoundError));
    const { code, err_code, description } = e.apiError();
    assert.deepEqual([code, err_code], [400, 10058]);
    assert.equal(description, e.message);
    assert.deepEqual([e.status, e.code], [code, err_code]);
    assert.equal(isMessageNotFound(e), false);
    assert.ok(isMessageNotFound(new JetStreamApiError({ code: 404, err_code: 10037, description: "no message found" })));
    await jsm.streams.delete("ERR_API");
    await nc.close();
  });

  test("a second ack is an InvalidOperationError; a deleted consumer ends consume with a JetStreamStatusError", async () => {
    const nc = await conn();
    const jsm = await jetstreamManager(nc);
    const js = natsjet.jetstream(nc);
    await jsm.streams.add({ name: "ERR_S", subjects: ["err.s"] });
    await jsm.consumers.add("ERR_S", { durable_name: "gone" });
    for (let i = 0; i < 3; i++) await js.publish("err.s", `${i}`);
    const consumer = await js.consumers.get("ERR_S", "gone");
    const messages = await consumer.consume({ expires: 2000, abort_on_missing_resource: true });
    let read = 0;
    const e = await caught(async () => {
      for await (const m of messages) {
        m.ack();
        assert.throws(() => m.ack(), (e) => is(e, InvalidOperationError, "ALREADY_ACKNOWLEDGED"));
        if (++read === 3) await jsm.consumers.delete("ERR_S", "gone");
      }
    });
    is(e, JetStreamStatusError, "CONSUMER_STATUS");
    assert.ok(e instanceof JetStreamError && !(e instanceof JetStreamApiError));
    assert.equal(e.code, 409);
    await jsm.streams.delete("ERR_S");
    await nc.close();
  });
});
