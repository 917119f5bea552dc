/**
 * The types of the raw wasm exports, identical in both builds. Taken from the
 * Node build's declarations, which (unlike the web build's, with its loader
 * types) need no DOM library, so Node users' type checks pass without it.
 */
export type * from "./node/natsjet.js";
