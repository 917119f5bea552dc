// TLS to nats:// and tls:// servers from Node (the socket shim), with the
// `tls` option's roots and client certificate, against a server that
// verifies clients, and TLS first for a server with `handshake_first`.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { connect } from "natsjet";
import { startServer, testCertificates } from "./harness.mjs";

let server;
let certs;
before(async () => {
  server = await startServer((dir) => {
    certs = testCertificates(dir);
    const { ca, cert, key } = certs.files;
    return `tls { ca_file: "${ca}", cert_file: "${cert}", key_file: "${key}", verify: true }`;
  });
});
after(() => server.close());

test("tls: the CA and a client certificate connect, over nats:// and tls://", async () => {
  const tls = { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey };
  for (const url of [server.url, server.url.replace("nats://", "tls://")]) {
    const nc = await connect({ servers: url, tls });
    nc.subscribe("secure").unsubscribe(1);
    await nc.flush();
    assert.equal(nc.info.tls_required, true);
    await nc.close();
  }
  const asArray = await connect({ servers: server.url, tls: { ...tls, ca: [certs.ca] } });
  await asArray.close();
  // WebSocket TLS is the WebSocket's: the option does not upgrade ws://.
  const ws = await connect({ servers: server.wsUrl, tls: {} });
  await ws.flush();
  await ws.close();
});

test("tls: without the CA, or without a client certificate, the connection fails", async () => {
  const fail = (tls) => connect({ servers: server.url, tls, maxReconnectAttempts: 0, timeout: 2000 });
  await assert.rejects(fail({}), { kind: "TLS" }, "the host's roots do not know the test CA");
  // The server refuses after the handshake: Node reports its alert as a socket error.
  await assert.rejects(fail({ ca: certs.ca }), { kind: "IO", message: /certificate required/ });
  await assert.rejects(fail({ ca: certs.ca, cert: certs.clientCert }), { kind: "INVALID_ARGUMENT" });
});

test("tls: handshakeFirst where the server asks for it", async () => {
  let pki;
  const first = await startServer((dir) => {
    pki = testCertificates(dir);
    const { ca, cert, key } = pki.files;
    return `tls { ca_file: "${ca}", cert_file: "${cert}", key_file: "${key}", handshake_first: true }`;
  });
  try {
    const nc = await connect({ servers: first.url, tls: { ca: pki.ca, handshakeFirst: true } });
    await nc.flush();
    assert.equal(nc.info.tls_required, true);
    await nc.close();
    // A client that waits for the INFO first gets none.
    const waiting = connect({ servers: first.url, tls: { ca: pki.ca }, maxReconnectAttempts: 0, timeout: 1000 });
    await assert.rejects(waiting, { kind: "TIMEOUT" });
  } finally {
    first.close();
  }
});
