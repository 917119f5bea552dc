/**
 * Names and subjects checked to be strings before they cross into the
 * wasm: wasm-bindgen's glue reads whatever it is given as a string, and a
 * number, a symbol or an array there traps ("memory access out of
 * bounds"). What a string holds is checked in Rust, with the errors the
 * Rust API gives.
 */
import { InvalidArgumentError } from "./errors.js";

/** `value`, when it is a string; else `INVALID_ARGUMENT` naming `what`. */
export function str(value: unknown, what: string): string {
  if (typeof value === "string") return value;
  const kind = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
  throw new InvalidArgumentError(`${what} must be a string, not ${kind}`);
}

/** [`str`] for an optional argument: `undefined` and `null` pass as they are. */
export function optStr<T extends undefined | null>(value: unknown, what: string): string | T {
  return value === undefined || value === null ? (value as T) : str(value, what);
}
