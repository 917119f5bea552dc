// Type-checked (tsc --noEmit --strict, no DOM lib) by types.test.mjs, never run:
// what a TypeScript user of the package writes must compile, and misuse must not.
import {
  connect,
  credsAuthenticator,
  headers,
  Match,
  NatsError,
  nkeyAuthenticator,
  type ConnectionOptions,
  type ErrorCode,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type ServerInfo,
  type Stats,
  type Status,
  type Subscription,
} from "natsjet";

export async function example(): Promise<void> {
  const options: ConnectionOptions = {
    servers: ["ws://127.0.0.1:8080"],
    name: "typed",
    authenticator: nkeyAuthenticator(new TextEncoder().encode("SUA…")),
    reconnectTimeWait: 250,
    maxReconnectAttempts: -1,
  };
  const nc: NatsConnection = await connect(options);
  const alsoCreds: ConnectionOptions = { authenticator: credsAuthenticator("-----BEGIN NATS USER JWT-----") };
  void alsoCreds;

  const h: MsgHdrs = headers();
  h.set("Trace-Id", "1");
  const first: string = h.get("trace-id", Match.IgnoreCase);
  void first;
  nc.publish("orders.new", "payload", { headers: h });
  nc.publish("orders.raw", new Uint8Array([1]), { reply: nc.newInbox() });

  const sub: Subscription = nc.subscribe("orders.>", { queue: "workers", max: 10 });
  for await (const m of sub) {
    const msg: Msg = m;
    const data: Uint8Array = msg.data;
    const body: { id: number } = msg.json<{ id: number }>();
    const replied: boolean = msg.respond("ok");
    void [data, body, replied, msg.headers?.code, msg.reply?.length];
  }
  nc.subscribe("events", { callback: (err: NatsError | null, msg: Msg) => void [err?.code, msg.subject] });

  try {
    const answer: Msg = await nc.request("svc", "q", { timeout: 500, headers: h });
    void answer;
  } catch (e) {
    if (e instanceof NatsError) {
      const code: ErrorCode = e.code;
      switch (code) {
        case "NO_RESPONDERS":
        case "TIMEOUT":
          void [e.status, e.errCode, e.description];
          break;
      }
    }
  }

  for await (const s of nc.status()) {
    const status: Status = s;
    if (status.type === "slowConsumer") void [status.sid, status.dropped];
    if (status.type === "error") void status.error.code;
  }
  const info: ServerInfo = nc.info;
  const stats: Stats = nc.stats();
  void [info.max_payload, stats.inMsgs];
  await nc.flush();
  await nc.drain();
  const closedWith: void | NatsError = await nc.closed();
  void closedWith;

  // @ts-expect-error: payloads are strings or bytes
  nc.publish("x", 42);
  // @ts-expect-error: options use nats.js names
  await connect({ server: "ws://x" });
  // @ts-expect-error: codes are a closed set
  const wrong: ErrorCode = "NOPE";
  void wrong;
}
