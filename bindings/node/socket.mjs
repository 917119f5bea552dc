// Node.js sockets for natsjet's wasm build: `nats://` and `tls://` servers over
// node:net and node:tls, so Node services can use the standard port without a
// websocket listener. Only the Node entry loads this file; browsers never do.
// The contract (`SocketFactory` in the generated .d.ts) is kept by
// src/transport/wasm/node_socket.rs.

import net from 'node:net';
import tls from 'node:tls';

/** The factory natsjet calls for `nats://` and `tls://` URLs. */
export const nodeSocketFactory = {
  connect(host, port, events) {
    return new NodeSocket(host, port, events);
  },
};

/** Registers Node sockets with a loaded natsjet wasm module. */
export function installNodeSockets(wasmModule) {
  wasmModule.setSocketFactory(nodeSocketFactory);
}

/**
 * `writeView` copies into buffers of this size, each used again once Node
 * has written it: natsjet hands over at most about 512 KiB at once, and a
 * fresh buffer per write is an allocation Node must also collect (an
 * object put over nats:// spent 6–8% more CPU per MiB so).
 */
const POOLED = 512 * 1024;
/**
 * Buffers made per socket: Node reports a full send buffer (and natsjet
 * waits) long before more are in use. A burst that natsjet hands over
 * without waiting gets copies of its own size past them.
 */
const MAX_POOLED = 4;

class NodeSocket {
  /** The socket that reads and writes: TCP, then TLS after `upgradeTls`. */
  #socket;
  /** Buffers of POOLED bytes written and free again. */
  #pool = [];
  /** Buffers of POOLED bytes made, at most MAX_POOLED. */
  #pooled = 0;
  /** Set to null by `close()`: natsjet frees the callbacks right after. */
  #events;
  #error = null;
  /** False while connecting or upgrading: `close()` then destroys at once. */
  #ready = false;
  #closed = false;
  #onData = (chunk) => this.#events?.onData(chunk);
  #onDrain = () => this.#events?.onDrain();
  #onError = (error) => {
    this.#error ??= error;
  };
  #onClose = () => {
    const events = this.#events;
    this.#events = null;
    events?.onClose(this.#error);
  };

  constructor(host, port, events) {
    this.#events = events;
    this.#socket = net.connect({ host, port, noDelay: true });
    this.#socket.once('connect', () => {
      this.#ready = true;
      this.#events?.onOpen();
    });
    this.#listen(this.#socket);
  }

  /** `written` is called once Node is done with `data`. */
  write(data, written) {
    // natsjet already gathers the writes of one tick into one (one syscall,
    // or one TLS record, instead of one per message).
    return this.#socket.write(data, written);
  }

  writeView(view) {
    const buffer = view.length <= POOLED && (this.#pool.pop() ?? this.#newPooled());
    if (!buffer) return this.write(Buffer.from(view));
    buffer.set(view);
    return this.write(buffer.subarray(0, view.length), () => {
      if (this.#pool.length < MAX_POOLED) this.#pool.push(buffer);
    });
  }

  /** Bytes written and not yet sent, which natsjet counts toward its outgoing bound. */
  get bufferedAmount() {
    return this.#socket.writableLength;
  }

  #newPooled() {
    if (this.#pooled === MAX_POOLED) return undefined;
    this.#pooled++;
    return Buffer.allocUnsafe(POOLED);
  }

  upgradeTls({ servername, ca, cert, key }) {
    const plain = this.#socket;
    // TLS reads the TCP socket from now on; its errors still land in #error.
    plain.off('data', this.#onData).off('drain', this.#onDrain).off('close', this.#onClose);
    this.#ready = false;
    return new Promise((resolve, reject) => {
      // Node verifies the certificate against `host`; SNI takes DNS names only.
      const sni = net.isIP(servername) ? undefined : servername;
      const secure = tls.connect({ socket: plain, host: servername, servername: sni, ca, cert, key });
      this.#socket = secure;
      const fail = (error) => reject(error ?? new Error('connection closed during the TLS handshake'));
      const failOnClose = () => fail(this.#error);
      secure.on('error', fail).once('close', failOnClose);
      secure.once('secureConnect', () => {
        secure.off('error', fail).off('close', failOnClose);
        this.#listen(secure);
        this.#ready = true;
        resolve();
      });
    });
  }

  close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#events = null;
    const socket = this.#socket;
    if (this.#ready) socket.end(() => socket.destroy());
    else socket.destroy();
  }

  #listen(socket) {
    socket.on('data', this.#onData).on('drain', this.#onDrain).on('error', this.#onError).on('close', this.#onClose);
  }
}
