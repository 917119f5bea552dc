// Bundled by esbuild into dist/signed.js for signed.html: connects with an
// nkey seed, which makes natsjet load @nats-io/nkeys on first use.
import { connect, nkeyAuthenticator } from "natsjet";
import { signIn } from "./scenario.mjs";

const params = new URLSearchParams(location.search);
window.result = signIn({ connect, nkeyAuthenticator }, params.get("servers"), params.get("seed"));
