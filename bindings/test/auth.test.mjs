// Authentication and authorization errors, with codes.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { nkeyAuthenticator as natsJsNkeyAuthenticator } from "@nats-io/nats-core";
import {
  connect,
  credsAuthenticator,
  jwtAuthenticator,
  NatsError,
  nkeyAuthenticator,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
} from "natsjet";
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
    kind: "AUTHORIZATION_VIOLATION",
  });
  await assert.rejects(connect({ servers: tokenServer.wsUrl }), { kind: "AUTHORIZATION_VIOLATION" });
});

test("user and password", async () => {
  const nc = await connect({ servers: users.wsUrl, user: "alice", pass: "wonderland" });
  await nc.flush();
  await nc.close();
  await assert.rejects(connect({ servers: users.wsUrl, user: "alice", pass: "nope" }), (e) => {
    assert.ok(e instanceof NatsError);
    assert.equal(e.kind, "AUTHORIZATION_VIOLATION");
    assert.match(e.message, /Authorization Violation/i);
    return true;
  });
});

test("nkey authenticator signs the nonce", async () => {
  const nc = await connect({ servers: users.wsUrl, authenticator: nkeyAuthenticator(new TextEncoder().encode(nkey.seed)) });
  await nc.flush();
  await nc.close();
  await assert.rejects(connect({ servers: users.wsUrl, authenticator: nkeyAuthenticator(nkeyPair().seed) }), {
    kind: "AUTHORIZATION_VIOLATION",
  });
  await assert.rejects(connect({ servers: users.wsUrl, authenticator: nkeyAuthenticator("not a seed") }), NatsError);
});

test("nats.js's own authenticators work unchanged", async () => {
  const enc = new TextEncoder();
  const nc = await connect({ servers: users.wsUrl, authenticator: natsJsNkeyAuthenticator(enc.encode(nkey.seed)) });
  await nc.flush();
  await nc.close();
});

test("token and user/password authenticators; one called on every connect", async () => {
  let calls = 0;
  const counted = (auth) => (nonce) => (calls++, auth(nonce));
  const nc = await connect({ servers: tokenServer.wsUrl, authenticator: counted(tokenAuthenticator(() => "s3cret")) });
  await nc.flush();
  await nc.close();
  assert.equal(calls, 1);
  const alice = await connect({ servers: users.wsUrl, authenticator: usernamePasswordAuthenticator("alice", "wonderland") });
  await alice.flush();
  await alice.close();
});

test("creds: the JWT goes along and the seed signs (the server checks the nkey when not in operator mode)", async () => {
  const creds = `-----BEGIN NATS USER JWT-----\neyJhbGciOiJlZDI1NTE5In0.e30.c2ln\n------END NATS USER JWT------\n\n` +
    `-----BEGIN USER NKEY SEED-----\n${nkey.seed}\n------END USER NKEY SEED------\n`;
  const nc = await connect({ servers: users.wsUrl, authenticator: credsAuthenticator(new TextEncoder().encode(creds)) });
  await nc.flush();
  await nc.close();
  const jwt = await connect({ servers: users.wsUrl, authenticator: jwtAuthenticator("eyJ.e30.c2ln", nkey.seed) });
  await jwt.flush();
  await jwt.close();
});

test("unreadable creds, a throwing or a malformed authenticator are CREDENTIALS errors", async () => {
  await assert.rejects(connect({ servers: users.wsUrl, authenticator: credsAuthenticator("no jwt here") }), {
    kind: "CREDENTIALS",
  });
  const throwing = () => {
    throw new Error("vault unavailable");
  };
  await assert.rejects(connect({ servers: users.wsUrl, authenticator: throwing }), (e) => {
    assert.equal(e.kind, "CREDENTIALS");
    assert.match(e.message, /vault unavailable/);
    return true;
  });
  await assert.rejects(connect({ servers: users.wsUrl, authenticator: () => ({ sig: "not base64!" }) }), {
    kind: "CREDENTIALS",
  });
  await assert.rejects(connect({ servers: users.wsUrl, authenticator: "SUxxx" }), { kind: "INVALID_ARGUMENT" });
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
  assert.equal(errors[0].kind, "PERMISSIONS_VIOLATION");
  nc.publish("public.news", "still connected");
  await nc.flush();
  await nc.close();
  await watching;
});
