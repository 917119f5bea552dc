// What each sample consumer of the packed package does, given the module
// (Node entry, esbuild bundle or web.js) and a server URL.
export async function run({ connect, headers, NatsError }, servers) {
  const nc = await connect({ servers, name: "sample-app" });
  nc.subscribe("sample.echo", { callback: (_err, m) => m.respond(m.data) });
  const sub = nc.subscribe("sample.greet");
  await nc.flush();
  const h = headers();
  h.set("Trace-Id", "42");
  nc.publish("sample.greet", "hello", { headers: h });
  let greeting;
  for await (const m of sub) {
    greeting = `${m.string()} ${m.headers?.get("Trace-Id")}`;
    break;
  }
  const answer = (await nc.request("sample.echo", "ping")).string();
  const noResponders = await nc.request("sample.nobody").then(
    () => "answered",
    (e) => e instanceof NatsError && e.kind,
  );
  await nc.drain();
  return { greeting, answer, noResponders };
}

/** Connects to a server that knows the seed's public nkey, and says whether the server let it in. */
export async function signIn({ connect, nkeyAuthenticator }, servers, seed) {
  const nc = await connect({ servers, authenticator: nkeyAuthenticator(seed) });
  await nc.flush();
  await nc.close();
  return "signed in";
}
