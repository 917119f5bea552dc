// Services written for nats.js's @nats-io/services 3.0.0-25 (ADR-32): a
// service with metadata, a group, a handler, an iterator and an endpoint
// that errs; calls, service errors, discovery by name and by id, stats,
// reset, stop; and the names the library refuses.
import { connect } from "@nats-io/transport-node";
import { headers } from "@nats-io/nats-core";
import {
  ServiceError,
  ServiceErrorCodeHeader,
  ServiceResponseType,
  ServiceVerb,
  Svcm,
  type Service,
  type ServiceIdentity,
  type ServiceInfo,
  type ServiceMsg,
  type ServiceStats,
} from "@nats-io/services";

// @nats-io/services 3.0.0-25 is typed against its own pinned nats-core
// (3.0.0-50), whose NatsConnection and Msg tsc does not take for those of
// transport-node 3.4 (the same objects at run time): the program casts, as
// its users must.
type ServiceConnection = ConstructorParameters<typeof Svcm>[0];
type ServiceReply = Parameters<typeof ServiceError.toServiceError>[0];
const reply = (m: unknown) => m as ServiceReply;

export async function services(servers: string): Promise<string[]> {
  const seen: string[] = [];
  const nc = await connect({ servers });
  const svcm = new Svcm(nc as unknown as ServiceConnection);
  const srv: Service = await svcm.add({
    name: "calc",
    version: "1.2.3",
    description: "a calculator",
    metadata: { team: "numbers" },
    statsHandler: async (ep) => ({ subject: ep.subject }),
  });
  const math = srv.addGroup("calc", "calcq");
  math.addEndpoint("sum", {
    handler: (err: Error | null, m: ServiceMsg) => {
      if (err) return;
      const numbers = m.json<number[]>();
      if (!Array.isArray(numbers)) {
        m.respondError(400, "expected an array of numbers");
        return;
      }
      m.respond(JSON.stringify(numbers.reduce((a, b) => a + b, 0)));
    },
    metadata: { input: "number[]" },
  });
  math.addEndpoint("divide", (_err, m) => {
    const [a, b] = m.json<[number, number]>();
    if (b === 0) throw new ServiceError(422, "division by zero");
    m.respond(`${a / b}`);
  });
  const upper = srv.addEndpoint("upper", { subject: "text.upper" });
  // nats.js 3.0.0-25 never ends this loop (natsjet ends it on stop): nothing waits for it.
  void (async () => {
    for await (const m of upper) m.respond(m.string().toUpperCase(), { headers: m.headers });
  })();
  await nc.flush();

  seen.push(`sum ${(await nc.request("calc.sum", "[1,2,3,4]")).string()}`);
  const bad = await nc.request("calc.sum", "{}");
  seen.push(`sum error ${bad.headers?.get(ServiceErrorCodeHeader)} ${ServiceError.toServiceError(reply(bad))?.message}`);
  seen.push(`divide ${(await nc.request("calc.divide", "[9,3]")).string()}`);
  const zero = ServiceError.toServiceError(reply(await nc.request("calc.divide", "[1,0]")));
  seen.push(`divide error ${zero?.code} ${zero?.message} ${ServiceError.isServiceError(reply(await nc.request("calc.divide", "[4,2]")))}`);
  const h = headers();
  h.set("Lang", "en");
  const shouted = await nc.request("text.upper", "hello", { headers: h, timeout: 2000 });
  seen.push(`upper ${shouted.string()} ${shouted.headers?.get("Lang")}`);

  const client = svcm.client();
  const pings: ServiceIdentity[] = [];
  for await (const p of await client.ping("calc")) pings.push(p);
  seen.push(`ping ${pings.map((p) => `${p.type === ServiceResponseType.PING} ${p.name} ${p.version} ${p.id === srv.info().id}`)}`);
  const infos: ServiceInfo[] = [];
  for await (const i of await client.info("calc", srv.info().id)) infos.push(i);
  for (const i of infos) {
    seen.push(`info ${i.name} ${i.description} ${JSON.stringify(i.metadata)}`);
    for (const e of i.endpoints) seen.push(`endpoint ${e.name} ${e.subject} ${e.queue_group} ${JSON.stringify(e.metadata ?? {})}`);
  }
  const all: ServiceStats[] = [];
  for await (const s of await client.stats()) all.push(s);
  for (const s of all.filter((s) => s.id === srv.info().id)) {
    seen.push(`stats ${s.type === ServiceResponseType.STATS} ${s.name} started ${!Number.isNaN(Date.parse(s.started))}`);
    for (const e of s.endpoints ?? []) {
      seen.push(`stats ${e.name} requests ${e.num_requests} errors ${e.num_errors} ${e.last_error ?? "-"} ${JSON.stringify(e.data)}`);
    }
  }
  const raw = await nc.request(`$SRV.${ServiceVerb.PING}.calc.${srv.ping().id}`);
  seen.push(`raw ping ${raw.json<ServiceIdentity>().name}`);

  srv.reset();
  const reset = await srv.stats();
  seen.push(`after reset ${reset.endpoints?.map((e) => `${e.name}:${e.num_requests}/${e.num_errors}`).join(" ")}`);

  for (const refused of [
    () => svcm.add({ name: "a.b", version: "1.0.0" }),
    () => svcm.add({ name: "ok", version: "one" }),
    async () => srv.addEndpoint("x.y", () => {}),
    async () => srv.addGroup("a.>"),
  ]) {
    try {
      await refused();
      seen.push("accepted");
    } catch (err) {
      seen.push(`refused ${(err as Error).message}`);
    }
  }

  seen.push(`stopped before ${srv.isStopped}`);
  const result = await srv.stop();
  seen.push(`stop ${result} ${srv.isStopped} ${await srv.stopped}`);
  try {
    await nc.request("calc.sum", "[1]");
    seen.push("answered after stop");
  } catch (err) {
    seen.push(`after stop ${(err as Error).name}`);
  }
  await nc.drain();
  return seen;
}
