/**
 * The discovery client: a `requestMany` to `$SRV.<verb>[.<name>[.<id>]]`,
 * each reply parsed as JSON into an iterator (a reply that is not JSON ends
 * it with the parse error, after the replies before it). Leaving the loop
 * ends the request.
 */
import type { NatsConnection } from "../connection.js";
import type { RequestManyOptions } from "../responses.js";
import { Empty } from "../util.js";
import { controlSubject } from "./names.js";
import { Queue } from "./queue.js";
import {
  ServiceVerb,
  type QueuedIterator,
  type ServiceClient,
  type ServiceIdentity,
  type ServiceInfo,
  type ServiceStats,
} from "./types.js";

export class ServiceClientImpl implements ServiceClient {
  /**
   * @param opts how long to collect replies: by default until none came for
   * 300 ms (`"stall"`), 2 s at most
   * @param prefix instead of `$SRV` (another account's services)
   */
  constructor(
    readonly nc: NatsConnection,
    readonly opts: Partial<RequestManyOptions> = { strategy: "stall", maxWait: 2000 },
    readonly prefix?: string,
  ) {}

  ping(name = "", id = ""): Promise<QueuedIterator<ServiceIdentity>> {
    return this.#ask(ServiceVerb.PING, name, id);
  }

  stats(name = "", id = ""): Promise<QueuedIterator<ServiceStats>> {
    return this.#ask(ServiceVerb.STATS, name, id);
  }

  info(name = "", id = ""): Promise<QueuedIterator<ServiceInfo>> {
    return this.#ask(ServiceVerb.INFO, name, id);
  }

  async #ask<T>(verb: ServiceVerb, name: string, id: string): Promise<QueuedIterator<T>> {
    const replies = await this.nc.requestMany(controlSubject(verb, name, id, this.prefix), Empty, this.opts);
    const parsed = new Queue<T>(undefined, () => replies.stop());
    void (async () => {
      for await (const m of replies) parsed.push(m.json<T>());
    })().then(
      () => parsed.stop(),
      (err: Error) => parsed.stop(err),
    );
    return parsed;
  }
}
