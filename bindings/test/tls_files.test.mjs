// TLS from Node with nats.js's file options: `caFile`, `certFile` and
// `keyFile` are read with node:fs; a missing file rejects `connect`.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ConnectionError, connect } from "natsjet";
import { startServer, testCertificates } from "./harness.mjs";

let server;
let dir;
before(async () => {
  server = await startServer((d) => {
    dir = d;
    const { ca, cert, key } = testCertificates(d).files;
    return `tls { ca_file: "${ca}", cert_file: "${cert}", key_file: "${key}", verify: true }`;
  });
});
after(() => server.close());

const files = () => ({ caFile: join(dir, "ca.pem"), certFile: join(dir, "client.pem"), keyFile: join(dir, "client.key") });

test("tls files: caFile, certFile and keyFile connect", async () => {
  const nc = await connect({ servers: server.url, tls: files() });
  await nc.flush();
  assert.equal(nc.info.tls_required, true);
  await nc.close();
});

test("tls files: a file wins over inline text, as nats.js", async () => {
  const nc = await connect({ servers: server.url, tls: { ...files(), ca: "not a PEM" } });
  await nc.close();
});

test("tls files: a missing file rejects connect with a TLS error naming it", async () => {
  for (const option of ["caFile", "certFile", "keyFile"]) {
    const missing = join(dir, `missing-${option}.pem`);
    await assert.rejects(connect({ servers: server.url, tls: { ...files(), [option]: missing } }), (e) => {
      assert.equal(e.kind, "TLS");
      assert.ok(e instanceof ConnectionError, "a ConnectionError, as the wasm's TLS errors");
      assert.ok(e.message.includes(option) && e.message.includes(missing), e.message);
      return true;
    });
  }
});
