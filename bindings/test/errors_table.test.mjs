// One table of error situations, each run by nats.js 3.4 and by natsjet
// against the same real nats-server: the errors must agree in class,
// `name`, `code`, `status`, `message`, the nats.js fields of their class
// (`subject`, `operation`, `queue`, `apiError()`), `instanceof` every
// nats.js error class, and the same for their `cause`. A situation's
// `differs` names each deliberate difference with both sides' values
// (docs/switching-from-nats-js.md's table says why); the test asserts those values too.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as natsjsCore from "@nats-io/transport-node";
import * as natsjsJetStream from "@nats-io/jetstream";
import { JetStreamStatusError, jserrors } from "@nats-io/jetstream/internal";
import { Kvm as NatsjsKvm } from "@nats-io/kv";
import { Objm as NatsjsObjm } from "@nats-io/obj";
import * as natsjet from "natsjet";
import { caught, startAccountsServer, startServer } from "./harness.mjs";

/** nats.js's error classes by name: nats-core's `errors`, jetstream's `jserrors` and its status error. */
const natsjsClasses = { ...natsjsCore.errors, ...jserrors, JetStreamStatusError };

/** The same calls from each library, and its classes under nats.js's names. */
const libraries = {
  "nats.js": {
    ...natsjsCore,
    ...natsjsJetStream,
    Kvm: NatsjsKvm,
    Objm: NatsjsObjm,
    classes: natsjsClasses,
  },
  natsjet: {
    ...natsjet,
    classes: Object.fromEntries(Object.keys(natsjsClasses).map((name) => [name, natsjet[name]])),
  },
};

let server;
let plain;
before(async () => {
  server = await startAccountsServer();
  plain = await startServer();
});
after(async () => {
  await server?.close();
  await plain?.close();
});

/** What the table compares of an error (`classes`: its library's, by nats.js's names). */
function shape(e, classes) {
  if (!(e instanceof Error)) return { thrown: e };
  const fields = {
    class: Object.getPrototypeOf(e).constructor.name,
    name: e.name,
    code: e.code,
    status: e.status,
    message: e.message,
    instanceOf: Object.keys(classes).filter((name) => e instanceof classes[name]),
  };
  for (const key of ["subject", "operation", "queue"]) if (e[key] !== undefined) fields[key] = e[key];
  if (typeof e.apiError === "function") fields.apiError = e.apiError();
  if (typeof e.isNoResponders === "function") fields.isNoResponders = e.isNoResponders();
  if (e.cause !== undefined) fields.cause = shape(e.cause, classes);
  return fields;
}

/** natsjet's errors, and the errors they wrap, are `NatsError`s with a string `kind`. */
function kinds(e) {
  for (let at = e; at !== undefined; at = at.cause) {
    assert.ok(at instanceof natsjet.NatsError, `a NatsError: ${at}`);
    assert.match(at.kind, /^[A-Z_]+$/, at.message);
  }
}

/** Removes the value at `path` ("cause.name") from `fields`; what it was. */
function take(fields, path) {
  const keys = path.split(".");
  const last = keys.pop();
  const holder = keys.reduce((o, k) => o?.[k], fields);
  const value = holder?.[last];
  if (holder) delete holder[last];
  return value;
}

// Each situation's `run(lib, ctx)` makes the error; `ctx` has a connection
// (`nc`, as user `js` unless `user` says otherwise, to `servers`), its `js`
// and a name `prefix` unique to the library, so both sides work on their
// own streams and buckets.
const situations = [];
const situation = (what, run, more = {}) => situations.push({ what, run, ...more });

// --- core NATS ---------------------------------------------------------------

situation("no responders", (lib, { nc }) => nc.request("table.nobody", "x"));

situation("no responders to requestMany", async (lib, { nc }) => {
  for await (const m of await nc.requestMany("table.nobody", "x")) void m;
});

situation("requestMany when the connection closes", async (lib, { nc }) => {
  nc.subscribe("table.slow");
  await nc.flush();
  const replies = await nc.requestMany("table.slow", "x", { maxWait: 5000 });
  setTimeout(() => nc.close(), 100);
  for await (const m of replies) void m;
});

situation("wrong password", (lib) => lib.connect({ servers: server.url, user: "js", pass: "wrong" }));

situation(
  "connect to a port nobody listens on",
  (lib) => lib.connect({ servers: "nats://127.0.0.1:1", timeout: 1000, reconnect: false }),
  {
    // natsjet says it in one message; nats.js puts the socket's error in `cause`.
    differs: {
      message: {
        "nats.js": "connection refused",
        natsjet: "i/o error (connection refused): connect ECONNREFUSED 127.0.0.1:1",
      },
      cause: {
        "nats.js": {
          class: "Error",
          name: "Error",
          code: "ECONNREFUSED",
          status: undefined,
          message: "connect ECONNREFUSED 127.0.0.1:1",
          instanceOf: [],
        },
        natsjet: undefined,
      },
    },
  },
);

situation("request timeout", async (lib, { nc }) => {
  nc.subscribe("table.silent");
  await nc.flush();
  await nc.request("table.silent", "x", { timeout: 100 });
});

/** natsjet's message of an invalid subject says why after nats.js's. */
const subjectWhy = {
  message: {
    "nats.js": "illegal subject: 'bad subject'",
    natsjet: "illegal subject: 'bad subject' (whitespace or control character)",
  },
};

situation("invalid subject on publish", (lib, { nc }) => nc.publish("bad subject", "x"), { differs: subjectWhy });

situation("invalid subject on subscribe", (lib, { nc }) => nc.subscribe("bad subject"), { differs: subjectWhy });

situation("publish on a closed connection", async (lib, { nc }) => {
  await nc.close();
  nc.publish("table.late", "x");
});

situation("request on a closed connection", async (lib, { nc }) => {
  await nc.close();
  await nc.request("table.late", "x");
});

situation("flush on a closed connection", async (lib, { nc }) => {
  await nc.close();
  await nc.flush();
});

situation(
  "a denied publish (the status's error)",
  async (lib, { nc }) => {
    const status = nc.status()[Symbol.asyncIterator]();
    nc.publish("secret.plans", "x");
    await nc.flush();
    for (;;) {
      const { value } = await status.next();
      if (value.type === "error") throw value.error;
    }
  },
  { user: "limited" },
);

situation(
  "a denied queue subscription (the status's error)",
  async (lib, { nc }) => {
    const status = nc.status()[Symbol.asyncIterator]();
    nc.subscribe("jobs.x", { queue: "workers" });
    await nc.flush();
    for (;;) {
      const { value } = await status.next();
      if (value.type === "error") throw value.error;
    }
  },
  { user: "limited" },
);

situation(
  "a denied request (rejected at once, not by its timeout)",
  (lib, { nc }) => nc.request("secret.plans", "x", { timeout: 30000 }),
  { user: "limited" },
);

// --- JetStream ---------------------------------------------------------------

/** `f(jsm, stream)` on a fresh stream of this library's that captures `<stream>.>` (more `config`), deleted after. */
async function withStream(lib, { nc, prefix }, name, f, config = {}) {
  const jsm = await lib.jetstreamManager(nc);
  const stream = `${prefix}_${name}`;
  await jsm.streams.add({ name: stream, subjects: [`${stream}.>`], ...config });
  try {
    return await f(jsm, stream);
  } finally {
    await jsm.streams.delete(stream);
  }
}

situation("stream not found", async (lib, { nc }) => {
  const jsm = await lib.jetstreamManager(nc);
  await jsm.streams.info("TABLE_NO_SUCH_STREAM");
});

situation("consumer not found", (lib, ctx) =>
  withStream(lib, ctx, "C", (jsm, stream) => jsm.consumers.info(stream, "nope")),
);

situation("stream name already in use", (lib, ctx) =>
  withStream(lib, ctx, "USED", (jsm, stream) => jsm.streams.add({ name: stream, subjects: ["table.other"] })),
);

situation("publish with a wrong last sequence", (lib, ctx) =>
  withStream(lib, ctx, "SEQ", async (jsm, stream) => {
    await ctx.js.publish(`${stream}.a`, "a");
    await ctx.js.publish(`${stream}.a`, "b", { expect: { lastSequence: 5 } });
  }),
);

situation("delete of a missing message", (lib, ctx) =>
  withStream(lib, ctx, "MSG", (jsm, stream) => jsm.streams.deleteMessage(stream, 7)),
);

situation("JetStream publish with no stream for the subject", (lib, { js }) => js.publish("table.nostream", "x"));

// --- Atomic batches and schedules ---------------------------------------------

situation("atomic batch on a stream without allow_atomic", (lib, ctx) =>
  withStream(lib, ctx, "NOATOMIC", (jsm, stream) => ctx.js.startBatch(`${stream}.a`, "x")),
);

situation(
  "a schedule on a stream without allow_msg_schedules",
  (lib, ctx) =>
    withStream(lib, ctx, "NOSCHED", (jsm, stream) =>
      ctx.js.publish(`${stream}.s`, "x", { schedule: { specification: { every: "5s" }, target: `${stream}.t` } }),
    ),
);

/**
 * Where nats.js throws a plain `Error` (or its `InvalidNameError`) for input
 * it refuses, natsjet's Rust rules refuse it with a class and their words.
 */
const typed = (natsjs, [natsjetClass, natsjetMessage]) => ({
  class: { "nats.js": natsjs[0], natsjet: natsjetClass },
  name: { "nats.js": natsjs[0], natsjet: natsjetClass },
  message: { "nats.js": natsjs[1], natsjet: natsjetMessage },
  instanceOf: { "nats.js": natsjs[0] === "Error" ? [] : [natsjs[0]], natsjet: [natsjetClass] },
});

situation(
  "stream name with a dot",
  async (lib, { nc }) => {
    const jsm = await lib.jetstreamManager(nc);
    await jsm.streams.add({ name: "bad.name", subjects: ["table.bad"] });
  },
  {
    differs: typed(
      ["InvalidNameError", "stream name ('bad.name') cannot contain '.'"],
      ["InvalidArgumentError", `stream name "bad.name" contains '.', '*' or '>'`],
    ),
  },
);

situation("JetStream not enabled for the account", (lib, { nc }) => lib.jetstreamManager(nc), { user: "nojs" });

situation(
  "direct get on a server without JetStream",
  async (lib, { nc }) => {
    const jsm = await lib.jetstreamManager(nc, { checkAPI: false });
    await jsm.direct.getMessage("TABLE_OFF", { seq: 1 });
  },
  { servers: () => plain.url },
);

situation(
  "direct batch get on a server without JetStream",
  async (lib, { nc }) => {
    const jsm = await lib.jetstreamManager(nc, { checkAPI: false });
    for await (const m of await jsm.direct.getBatch("TABLE_OFF", { seq: 1, batch: 2 })) void m;
  },
  { servers: () => plain.url },
);

situation("JetStream not enabled on the server", (lib, { nc }) => lib.jetstreamManager(nc), {
  servers: () => plain.url,
});

situation("a consumer deleted under consume, with abort_on_missing_resource", (lib, ctx) =>
  withStream(lib, ctx, "GONE", async (jsm, stream) => {
    await jsm.consumers.add(stream, { durable_name: "gone", ack_policy: "explicit" });
    await ctx.js.publish(`${stream}.a`, "x");
    const messages = await (await ctx.js.consumers.get(stream, "gone")).consume({ abort_on_missing_resource: true });
    // Deleted once the first message came: the pull that brought it waits on.
    for await (const m of messages) {
      m.ack();
      await jsm.consumers.delete(stream, "gone");
    }
  }),
);

situation(
  "a denied consumer create (rejected at once, not by the API timeout)",
  (lib, ctx) =>
    // One name for both libraries (each deletes it after): the subject is in the message.
    withStream(lib, { ...ctx, prefix: "both" }, "LOCKED", async (_, stream) => {
      const jsm = await lib.jetstreamManager(ctx.nc, { timeout: 30000 });
      await jsm.consumers.add(stream, { name: "locked", ack_policy: "explicit" });
    }),
  { user: "limited" },
);

// --- Key-Value ---------------------------------------------------------------

/** Runs `f(bucket)` on a fresh KV bucket or object store (`Manager`: `Kvm`, `Objm`) of this library's, destroyed after. */
async function withBucket(Manager, { nc, prefix }, name, f) {
  const bucket = await new Manager(nc).create(`${prefix}_${name}`);
  try {
    await f(bucket);
  } finally {
    await bucket.destroy();
  }
}

situation("KV create on an existing key", (lib, ctx) =>
  withBucket(lib.Kvm, ctx, "kv_create", async (kv) => {
    await kv.put("k", "1");
    await kv.create("k", "2");
  }),
);

situation("KV update with a stale revision", (lib, ctx) =>
  withBucket(lib.Kvm, ctx, "kv_update", async (kv) => {
    const rev = await kv.put("k", "1");
    await kv.put("k", "2");
    await kv.update("k", "3", rev);
  }),
);

situation(
  "a denied KV put (rejected at once, not by its timeout)",
  (lib, ctx) => withBucket(lib.Kvm, { ...ctx, prefix: "both" }, "kv_denied", (kv) => kv.put("locked", "1")),
  { user: "limited" },
);

situation("KV put with a bad key", (lib, ctx) => withBucket(lib.Kvm, ctx, "kv_key", (kv) => kv.put("bad key", "1")), {
    differs: typed(
      ["Error", "invalid key: bad key"],
      ["InvalidArgumentError", `invalid key "bad key": use letters, digits and '-/_=.' only`],
    ),
  },
);

situation("KV status of a missing bucket", async (lib, { nc }) => {
  const kv = await new lib.Kvm(nc).open("table_no_such_bucket");
  await kv.status();
});

situation("KV create with a bad bucket name", (lib, { nc }) => new lib.Kvm(nc).create("bad.bucket"), {
  differs: typed(
    ["Error", "invalid bucket name: bad.bucket"],
    ["InvalidArgumentError", `invalid bucket name "bad.bucket": use letters, digits, '_' and '-' only`],
  ),
});

// --- Object Store ------------------------------------------------------------

/** Where nats.js rejects with a plain `Error`, natsjet with the API error that says the same. */
const apiError = (natsjsMessage, natsjetClasses, { code, status, description }) => ({
  class: { "nats.js": "Error", natsjet: natsjetClasses[0] },
  name: { "nats.js": "Error", natsjet: natsjetClasses[0] },
  message: { "nats.js": natsjsMessage, natsjet: description },
  instanceOf: { "nats.js": [], natsjet: natsjetClasses },
  code: { "nats.js": undefined, natsjet: code },
  status: { "nats.js": undefined, natsjet: status },
  apiError: { "nats.js": undefined, natsjet: { code: status, err_code: code, description } },
});

/** `f(batch, stream)` on a batch started on a fresh stream that takes atomic batches. */
const withBatch = (lib, ctx, name, f) =>
  withStream(lib, ctx, name, async (jsm, stream) => f(await ctx.js.startBatch(`${stream}.a`, "x"), stream), { allow_atomic: true });

situation(
  "an atomic batch over the server's limit",
  (lib, ctx) =>
    withBatch(lib, ctx, "OVER", async (batch, stream) => {
      for (let i = 0; i < 1000; i++) batch.add(`${stream}.a`, "x");
      await batch.commit(`${stream}.a`, "x");
    }),
  {
    // nats.js reads the commit's error reply as an ack and finds its count wrong.
    differs: apiError("batch didn't contain number of published messages", ["JetStreamApiError"], {
      code: 10199,
      status: 400,
      description: "atomic publish batch is too large: 1000",
    }),
  },
);

situation(
  "a message added to a committed batch",
  (lib, ctx) =>
    withBatch(lib, ctx, "DONE", async (batch, stream) => {
      await batch.commit(`${stream}.b`, "y");
      batch.add(`${stream}.c`, "z");
    }),
  { differs: typed(["Error", "batch publisher is done"], ["InvalidOperationError", "batch publisher is done"]) },
);

situation(
  "a schedule every 500ms",
  (lib, ctx) => ctx.js.publish("table.sched", "x", { schedule: { specification: { every: "500ms" }, target: "table.t" } }),
  {
    differs: typed(
      ["Error", "@every interval must be at least 1s"],
      ["InvalidArgumentError", `schedule "@every 500ms": @every interval must be at least 1s`],
    ),
  },
);

situation("Object Store open of a missing bucket", (lib, { nc }) => new lib.Objm(nc).open("table_no_such_store"), {
  differs: apiError("object store not found", ["StreamNotFoundError", "JetStreamApiError"], {
    code: 10059,
    status: 404,
    description: "stream not found",
  }),
});

situation(
  "Object Store put with an empty name",
  (lib, ctx) => withBucket(lib.Objm, ctx, "obj_name", (os) => os.putBlob({ name: "" }, new Uint8Array(3))),
  { differs: typed(["Error", "name cannot be empty"], ["InvalidArgumentError", `invalid object name "": empty name`]) },
);

situation(
  "Object Store update of a missing object",
  (lib, ctx) => withBucket(lib.Objm, ctx, "obj_update", (os) => os.update("nope", { description: "x" })),
  {
    differs: apiError("object not found", ["JetStreamApiError"], {
      code: 10037,
      status: 404,
      description: `no object named "nope"`,
    }),
  },
);

situation(
  "Object Store link to a deleted object",
  (lib, ctx) =>
    withBucket(lib.Objm, ctx, "obj_link", async (os) => {
      const info = await os.putBlob({ name: "gone" }, new Uint8Array(3));
      await os.delete("gone");
      await os.link("to-gone", { ...info, deleted: true });
    }),
  { differs: typed(["Error", "src object is deleted"], ["InvalidArgumentError", "the object to link to is deleted"]) },
);

situation("Object Store create with a bad bucket name", (lib, { nc }) => new lib.Objm(nc).create("bad.store"), {
  differs: typed(
    ["Error", "invalid bucket name: bad.store"],
    ["InvalidArgumentError", `invalid bucket name "bad.store": use letters, digits, '_' and '-' only`],
  ),
});

describe("an error table: nats.js 3.4 and natsjet in the same situations", () => {
  for (const { what, run, user = "js", differs = {}, servers = () => server.url } of situations) {
    test(what, async () => {
      const seen = {};
      for (const [library, lib] of Object.entries(libraries)) {
        const nc = await lib.connect({ servers: servers(), user, pass: user === "limited" ? "pw" : user });
        const prefix = library === "natsjet" ? "jet" : "njs";
        const ctx = { nc, prefix, js: lib.jetstream(nc) };
        try {
          const e = await caught(() => run(lib, ctx));
          seen[library] = shape(e, lib.classes);
          if (library === "natsjet") kinds(e);
        } finally {
          if (!nc.isClosed()) await nc.close();
        }
      }
      for (const [path, values] of Object.entries(differs)) {
        for (const library of Object.keys(libraries)) {
          assert.deepEqual(take(seen[library], path), values[library], `${library}'s ${path} (a deliberate difference)`);
        }
      }
      assert.deepEqual(seen.natsjet, seen["nats.js"]);
    });
  }
});

test("a missing message is null for both, not an error", async () => {
  for (const [library, lib] of Object.entries(libraries)) {
    const nc = await lib.connect({ servers: server.url, user: "js", pass: "js" });
    const got = await withStream(lib, { nc, prefix: library === "natsjet" ? "jet" : "njs" }, "NULL", async (jsm, stream) => {
      await jsm.streams.update(stream, { allow_direct: true });
      return [await jsm.streams.getMessage(stream, { seq: 3 }), await jsm.direct.getMessage(stream, { seq: 3 })];
    });
    assert.deepEqual(got, [null, null], library);
    await nc.close();
  }
});

test("natsjet exports nats.js's error classes, namespaces and codes under their names", () => {
  for (const [name, Class] of Object.entries(natsjsClasses)) {
    assert.equal(typeof natsjet[name], "function", name);
    assert.equal(new Class("x").name, natsjet[name].prototype.name, `${name}'s name`);
  }
  assert.deepEqual(Object.keys(natsjet.errors).sort(), Object.keys(natsjsCore.errors).sort());
  for (const [name, Class] of Object.entries(natsjet.errors)) assert.equal(Class, natsjet[name], name);
  assert.deepEqual(Object.keys(natsjet.jserrors).sort(), Object.keys(jserrors).sort());
  for (const [name, Class] of Object.entries(natsjet.jserrors)) assert.equal(Class, natsjet[name], name);
  assert.deepEqual(natsjet.JetStreamApiCodes, natsjsJetStream.JetStreamApiCodes);
});
