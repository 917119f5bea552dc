/**
 * nats.js's small helpers, with its exact results: `Empty`, `nanos` and
 * `millis` (durations in JetStream configs are nanoseconds).
 */
import type { Nanos } from "./raw_core.js";

/** An empty payload (nats.js `Empty`). */
export const Empty: Uint8Array = new Uint8Array(0);

/** Milliseconds to nanoseconds, as nats.js: `millis * 1_000_000`. */
export function nanos(millis: number): Nanos {
  return millis * 1_000_000;
}

/** Nanoseconds to whole milliseconds, rounded down, as nats.js. */
export function millis(ns: Nanos): number {
  return Math.floor(ns / 1_000_000);
}
