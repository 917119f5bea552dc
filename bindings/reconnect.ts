/**
 * nats.js's `reconnectToServer` over the wasm's: the pool comes as two
 * lists (src/wasm/reconnect.rs), made into nats.js's `Server`s here, and
 * the handler's pick goes back as its index in the pool and the wait in ms
 * before dialing it.
 */
import type { RawReconnectToServer, ReconnectToServerHandler, Server } from "./raw_core.js";

/** Numbers per server: port, failures, last attempt, gossiped, didConnect. */
const NUMBERS = 5;

export function rawReconnectToServer(handler: ReconnectToServerHandler): RawReconnectToServer {
  return (strings, numbers, info) => {
    const pool: Server[] = [];
    for (let i = 0; i < numbers.length / NUMBERS; i++) {
      const [hostname = "", listen = "", src = ""] = strings.slice(3 * i, 3 * i + 3);
      const [port = 0, reconnects = 0, lastConnect = 0, gossiped, didConnect] = numbers.subarray(NUMBERS * i, NUMBERS * i + NUMBERS);
      pool.push(Object.freeze({ hostname, port, listen, src, tlsName: "", reconnects, lastConnect, gossiped: gossiped === 1, didConnect: didConnect === 1 }));
    }
    const answer = handler(pool, info);
    if (answer == null) return null;
    const [server, delay] = "server" in answer ? [answer.server, answer.delay] : [answer, 0];
    const index = pool.findIndex((s) => s.listen === server?.listen);
    if (index < 0) throw new Error("the server it returned is not in the pool");
    return [index, Number.isFinite(delay) && delay > 0 ? Math.floor(delay) : 0];
  };
}
