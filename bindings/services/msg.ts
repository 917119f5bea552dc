/**
 * `ServiceMsg`: a request as an endpoint gets it, the message with
 * `respondError`; and the headers a thrown error answers with.
 */
import { headers, type MsgHdrs } from "../headers.js";
import type { JsonReviver, Msg, Payload, PublishOptions } from "../msg.js";
import { ServiceError, ServiceErrorCodeHeader, ServiceErrorHeader, type ServiceMsg } from "./types.js";

/** Sets a service error's headers on `h`. */
function setError(h: MsgHdrs, code: number | string, description: string): MsgHdrs {
  h.set(ServiceErrorCodeHeader, `${code}`);
  h.set(ServiceErrorHeader, description);
  return h;
}

/** The headers answering a thrown `err`: a `ServiceError`'s code, else 500. */
export function errorHeaders(err: Error): MsgHdrs {
  return setError(headers(), err instanceof ServiceError ? err.code : 500, `${err?.message ?? err}`);
}

export class ServiceMsgImpl implements ServiceMsg {
  constructor(readonly msg: Msg) {}

  get data(): Uint8Array {
    return this.msg.data;
  }

  get sid(): number {
    return this.msg.sid;
  }

  get subject(): string {
    return this.msg.subject;
  }

  get reply(): string {
    return this.msg.reply || "";
  }

  get headers(): MsgHdrs | undefined {
    return this.msg.headers;
  }

  respond(data?: Payload, opts?: PublishOptions): boolean {
    return this.msg.respond(data, opts);
  }

  respondError(code: number, description: string, data?: Payload, opts: PublishOptions = {}): boolean {
    opts.headers = setError(opts.headers ?? headers(), code, description);
    return this.msg.respond(data, opts);
  }

  json<T = unknown>(reviver?: JsonReviver): T {
    return this.msg.json(reviver);
  }

  string(): string {
    return this.msg.string();
  }
}
