// Authentication and authorization errors, with codes.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { connect, credsAuthenticator, NatsError, nkeyAuthenticator } from "natsjet";
import { nkeyPair, startServer, waitFor } from "./harness.mjs";

const nkey = nkeyPair();
let users;
let tokenServer;
before(async () => {
  users = await startServer(`authorization {
    users: [
      { user: "alice", password: "wonderland" }
      { user: "limited", password: "pw", permissions: { publish: { deny: "secret.>" } } }
      { nkey: "${nkey.publicKey}" }
    ]
  }`);
  tokenServer = await startServer(`authorization { token: "s3cret" }`);
});
after(async () => {
  await users.close();
  await tokenServer.close();
});

test("token", async () => {
  const nc = await connect({ servers: tokenServer.wsUrl, token: "s3cret" });
  await nc.flush();
  await nc.close();
  await assert.rejects(connect({ servers: tokenServer.wsUrl, token: "wrong" }), {
    code: "AUTHORIZATION_VIOLATION",
  });
  await assert.rejects(connect({ servers: tokenServer.wsUrl }), { code: "AUTHORIZATION_VIOLATION" });
});

test("user and password", async () => {
  const nc = await connect({ servers: users.wsUrl, user: "alice", pass: "wonderland" });
  await nc.flush();
  await nc.close();
  await assert.rejects(connect({ servers: users.wsUrl, user: "alice", pass: "nope" }), (e) => {
    assert.ok(e instanceof NatsError);
    assert.equal(e.code, "AUTHORIZATION_VIOLATION");
    assert.match(e.description, /Authorization Violation/i);
    return true;
  });
});

test("nkey authenticator signs the nonce", async () => {
  const nc = await connect({ servers: users.wsUrl, authenticator: nkeyAuthenticator(new TextEncoder().encode(nkey.seed)) });
  await nc.flush();
  await nc.close();
  await assert.rejects(connect({ servers: users.wsUrl, authenticator: nkeyAuthenticator(nkeyPair().seed) }), {
    code: "AUTHORIZATION_VIOLATION",
  });
  await assert.rejects(connect({ servers: users.wsUrl, authenticator: nkeyAuthenticator("not a seed") }), NatsError);
});

test("unreadable creds are a CREDENTIALS error before connecting", async () => {
  await assert.rejects(connect({ servers: users.wsUrl, authenticator: credsAuthenticator("no jwt here") }), {
    code: "CREDENTIALS",
  });
});

test("a permissions violation is an error status; the connection stays up", async () => {
  const nc = await connect({ servers: users.wsUrl, user: "limited", pass: "pw" });
  const errors = [];
  const watching = (async () => {
    for await (const s of nc.status()) if (s.type === "error") errors.push(s.error);
  })();
  nc.publish("secret.plans", "x");
  await nc.flush();
  await waitFor(() => errors.length === 1);
  assert.ok(errors[0] instanceof NatsError);
  assert.equal(errors[0].code, "PERMISSIONS_VIOLATION");
  nc.publish("public.news", "still connected");
  await nc.flush();
  await nc.close();
  await watching;
});
