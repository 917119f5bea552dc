/**
 * A service (ADR-32) over the connection's subscriptions: each endpoint is
 * a queue subscription whose requests go to its handler (or its iterator)
 * and are counted; nine plain subscriptions answer discovery (`PING`,
 * `INFO`, `STATS`, each for all services, this name and this instance).
 * A subscription that ends while the service runs stops it; `stop` drains
 * them all. nats.js's rules: queue groups inherit (service, then groups,
 * then endpoint; `"q"` unless the service's is `""`), a thrown error
 * answers with the error headers and counts in `num_errors`.
 */
import type { NatsConnection } from "../connection.js";
import type { NatsError } from "../errors.js";
import type { Msg } from "../msg.js";
import type { Subscription } from "../subscription.js";
import { Empty } from "../util.js";
import { ServiceMsgImpl, errorHeaders } from "./msg.js";
import { checkName, checkSubject, checkVersion, controlSubject } from "./names.js";
import { Queue } from "./queue.js";
import {
  ServiceResponseType,
  ServiceVerb,
  type EndpointInfo,
  type EndpointOptions,
  type NamedEndpointStats,
  type QueuedIterator,
  type Service,
  type ServiceConfig,
  type ServiceGroup,
  type ServiceHandler,
  type ServiceIdentity,
  type ServiceInfo,
  type ServiceMsg,
  type ServiceStats,
} from "./types.js";

/** An endpoint and its counters; what `statsHandler` is given. */
class EndpointState {
  num_requests = 0;
  num_errors = 0;
  /** Nanoseconds, summed. */
  processing_time = 0;
  last_error: string | undefined;
  data: unknown;

  constructor(
    readonly name: string,
    readonly subject: string,
    readonly queue: string,
    readonly handler: ServiceHandler | undefined,
    readonly metadata: Record<string, string> | undefined,
  ) {}

  count(ms: number): void {
    this.num_requests++;
    this.processing_time += Math.round(ms * 1e6);
  }

  fail(err: Error): void {
    this.num_errors++;
    this.last_error = err?.message;
  }

  reset(): void {
    this.num_requests = this.num_errors = this.processing_time = 0;
    this.last_error = this.data = undefined;
  }

  info(): EndpointInfo {
    const { name, subject, metadata, queue } = this;
    return { name, subject, queue_group: queue, metadata };
  }

  stats(): NamedEndpointStats {
    const { name, subject, queue, num_requests, num_errors, last_error, data, processing_time } = this;
    const average_processing_time = num_requests ? Math.round(processing_time / num_requests) : 0;
    return { name, subject, queue_group: queue, num_requests, num_errors, last_error, data, processing_time, average_processing_time };
  }
}

/** A subject prefix (`""` for the service's root) and the queue group its endpoints inherit. */
class Group implements ServiceGroup {
  constructor(
    readonly service: ServiceImpl,
    readonly subject: string,
    readonly queue: string,
  ) {}

  /** `subject` under this group. */
  under(subject: string): string {
    return subject === "" ? this.subject : this.subject === "" ? subject : `${this.subject}.${subject}`;
  }

  addEndpoint(name = "", opts?: ServiceHandler | EndpointOptions): QueuedIterator<ServiceMsg> {
    const { subject = "", handler, metadata, queue } = typeof opts === "function" ? { handler: opts } : (opts ?? {});
    checkName("endpoint", name);
    checkSubject("endpoint subject", subject || name, true);
    return this.service.endpoint(name, this.under(subject || name), queue || this.queue, handler, metadata);
  }

  addGroup(name = "", queue?: string): ServiceGroup {
    if (name !== "") checkSubject("service group", name, false);
    return new Group(this.service, this.under(name), queue ?? this.queue);
  }
}

export class ServiceImpl implements Service {
  readonly #nc: NatsConnection;
  readonly #config: ServiceConfig;
  readonly #queue: string;
  readonly id: string;
  started = new Date().toISOString();
  readonly #endpoints: EndpointState[] = [];
  readonly #subs: Subscription[] = [];
  #stopped = false;
  #resolve!: (err: Error | null) => void;
  readonly stopped: Promise<Error | null> = new Promise((resolve) => (this.#resolve = resolve));

  constructor(nc: NatsConnection, config: ServiceConfig = { name: "", version: "" }) {
    this.#nc = nc;
    this.#config = { ...config };
    if (config.metadata) Object.freeze(config.metadata);
    this.#queue = config.queue ?? "q";
    checkName("name", config.name);
    if (this.#queue) checkName("queue", this.#queue);
    checkVersion(config.version);
    // A new inbox ends in 22 random base62 characters, as nats.js's nuid.
    this.id = nc.newInbox().slice(-22);
    for (const verb of Object.values(ServiceVerb)) {
      const answer = async (): Promise<unknown> =>
        verb === ServiceVerb.STATS ? this.stats() : verb === ServiceVerb.INFO ? this.info() : this.ping();
      const respond = (m: Msg) => answer().then((reply) => m.respond(JSON.stringify(reply)), () => {});
      for (const subject of [controlSubject(verb), controlSubject(verb, config.name), controlSubject(verb, config.name, this.id)]) {
        this.#subscribe(subject, "", (m) => void respond(m));
      }
    }
  }

  get isStopped(): boolean {
    return this.#stopped;
  }

  addEndpoint(name: string, opts?: ServiceHandler | EndpointOptions): QueuedIterator<ServiceMsg> {
    return new Group(this, "", "").addEndpoint(name, opts);
  }

  addGroup(name: string, queue?: string): ServiceGroup {
    return new Group(this, "", "").addGroup(name, queue);
  }

  /** @internal Subscribes an endpoint checked by its group. */
  endpoint(
    name: string,
    subject: string,
    queue: string,
    handler: ServiceHandler | undefined,
    metadata: Record<string, string> | undefined,
  ): QueuedIterator<ServiceMsg> {
    const ep = new EndpointState(name, subject, queue || this.#queue, handler, metadata);
    const requests = new Queue<ServiceMsg>((ms) => ep.count(ms), () => void this.stop(), handler !== undefined);
    this.#subscribe(
      subject,
      ep.queue,
      (msg) => {
        if (!handler) return requests.push(new ServiceMsgImpl(msg));
        const start = performance.now();
        try {
          handler(null, new ServiceMsgImpl(msg));
        } catch (err) {
          ep.fail(err as Error);
          msg.respond(Empty, { headers: errorHeaders(err as Error) });
        } finally {
          ep.count(performance.now() - start);
        }
      },
      () => requests.stop(),
    );
    this.#endpoints.push(ep);
    return requests;
  }

  /** A subscription the service needs: its end (while running) stops the service. */
  #subscribe(subject: string, queue: string, onMsg: (msg: Msg) => void, ended?: () => void): void {
    const callback = (err: NatsError | null, msg: Msg) => (err ? void this.stop(err) : onMsg(msg));
    const sub = this.#nc.subscribe(subject, { queue: queue || undefined, callback });
    this.#subs.push(sub);
    void sub.closed.then((err) => {
      ended?.();
      if (this.#stopped) return;
      const why = err ? `errored: ${err.message}` : "stopped";
      void this.stop(this.#nc.isClosed() ? err || undefined : new Error(`required subscription ${subject} ${why}`));
    });
  }

  stop(err?: Error): Promise<Error | null> {
    if (!this.#stopped) {
      this.#stopped = true;
      const drains = this.#nc.isClosed() ? [] : this.#subs.map((sub) => sub.drain());
      void Promise.allSettled(drains).then(() => this.#resolve(err ?? null));
    }
    return this.stopped;
  }

  ping(): ServiceIdentity {
    const { name, version, metadata } = this.#config;
    return { type: ServiceResponseType.PING, name, id: this.id, version, metadata };
  }

  info(): ServiceInfo {
    const { name, version, metadata, description = "" } = this.#config;
    const endpoints = this.#endpoints.map((ep) => ep.info());
    return { type: ServiceResponseType.INFO, name, id: this.id, version, description, metadata, endpoints };
  }

  async stats(): Promise<ServiceStats> {
    const { name, version, metadata, statsHandler } = this.#config;
    const endpoints: NamedEndpointStats[] = [];
    for (const ep of this.#endpoints) {
      if (typeof statsHandler === "function") {
        try {
          ep.data = await statsHandler(ep);
        } catch (err) {
          ep.fail(err as Error);
        }
      }
      endpoints.push(ep.stats());
    }
    return { type: ServiceResponseType.STATS, name, id: this.id, version, started: this.started, metadata, endpoints };
  }

  reset(): void {
    this.started = new Date().toISOString();
    for (const ep of this.#endpoints) ep.reset();
  }
}
