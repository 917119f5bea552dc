// A TCP proxy on 127.0.0.1 (node:net) that breaks the connections it
// carries on purpose: cut (RST both ways), stall (stop reading, keep
// open), slow (a bandwidth cap per direction) and half-open (swallow
// everything both ways, never close). A fault hits the connections open
// when it is applied; new ones are forwarded (so a client can reconnect
// through it), and a bandwidth cap holds for all until lifted. The Rust
// twin is tests/common/proxy.rs.
import net from "node:net";

/** Starts a proxy to `127.0.0.1:upstreamPort`; `close()` destroys every socket. */
export async function startProxy(upstreamPort) {
  const conns = new Set();
  const proxy = {
    accepted: 0,
    bandwidth: 0,
    port: 0,
    get wsUrl() {
      return `ws://127.0.0.1:${this.port}`;
    },
    /** Connections still forwarded, which the next fault hits. */
    openConnections() {
      return [...conns].filter((c) => c.mode === "forward").length;
    },
    cut: () => apply("cut"),
    stall: () => apply("stall"),
    halfOpen: () => apply("swallow"),
    /** Caps each direction of every connection at `bytesPerSecond` (0 lifts it). */
    slow(bytesPerSecond) {
      proxy.bandwidth = bytesPerSecond;
    },
    /** One of "cut", "stall", "slow" (at SLOW_BYTES_PER_SECOND), "halfOpen". */
    inject(fault) {
      if (fault === "slow") proxy.slow(SLOW_BYTES_PER_SECOND);
      else proxy[fault]();
    },
    async close() {
      for (const c of conns) for (const s of [c.client, c.upstream]) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  function apply(mode) {
    for (const c of conns) {
      if (c.mode !== "forward") continue;
      c.mode = mode;
      for (const s of [c.client, c.upstream]) {
        if (mode === "cut") s.resetAndDestroy();
        else if (mode === "stall") s.pause();
        else s.resume(); // swallow: read on, so the peers never block, and drop it
      }
    }
  }

  /** Forwards `from` to `to` while the connection's mode says so. */
  function pipe(conn, from, to) {
    from.on("data", (chunk) => {
      if (conn.mode !== "forward") return;
      to.write(chunk);
      if (proxy.bandwidth > 0) {
        // The cap is the pacing itself: a chunk of n bytes holds reading for n / cap seconds.
        from.pause();
        setTimeout(() => conn.mode === "forward" && from.resume(), (chunk.length / proxy.bandwidth) * 1000);
      }
    });
    from.on("end", () => conn.mode === "forward" && to.end());
    from.on("error", () => conn.mode === "forward" && to.destroy());
    from.on("close", () => {
      if (conn.mode !== "swallow") conns.delete(conn);
    });
  }

  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    proxy.accepted++;
    const upstream = net.connect({ port: upstreamPort, host: "127.0.0.1", allowHalfOpen: true });
    const conn = { client, upstream, mode: "forward" };
    conns.add(conn);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    pipe(conn, client, upstream);
    pipe(conn, upstream, client);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.port = server.address().port;
  return proxy;
}

/** The bandwidth cap of the "slow" fault. */
export const SLOW_BYTES_PER_SECOND = 64 * 1024;

/** Every fault, for tests that run each in turn. */
export const FAULTS = ["cut", "stall", "slow", "halfOpen"];
