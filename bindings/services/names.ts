/**
 * What a service's names, subjects and version may be, refused with
 * nats.js's messages (as `InvalidArgumentError`s), and the discovery
 * subjects `<prefix>.<verb>[.<name>[.<id>]]`.
 */
import { InvalidArgumentError } from "../errors.js";
import type { ServiceVerb } from "./types.js";

const fail = (message: string): never => {
  throw new InvalidArgumentError(message);
};

/** A service, endpoint or queue name: letters, digits, `-` and `_`. */
export function checkName(context: string, name = ""): void {
  if (name === "") fail(`${context} name required`);
  const bad = [...name].find((c) => !/[-\w]/.test(c));
  if (bad !== undefined) fail(`invalid ${context} name - ${context} name cannot contain '${bad}'`);
}

/** Holds a `major.minor.patch`, as nats.js checks. */
export function checkVersion(version = ""): void {
  if (!/\d+.\d+.\d+/.test(version)) fail(`'${version}' is not a semver value`);
}

/** A subject with no spaces and `>` only last (`tail`) or nowhere. */
export function checkSubject(context: string, subject: string, tail: boolean): void {
  if (tail && subject === "") fail(`${context} cannot be empty`);
  if (subject.includes(" ")) fail(`${context} cannot contain spaces: '${subject}'`);
  const tokens = subject.split(".");
  if (tokens.some((t, i) => t === ">" && !(tail && i === tokens.length - 1))) {
    fail(`${context} ${tail ? "cannot have" : "name cannot contain"} internal '>': '${subject}'`);
  }
}

/** `$SRV.<verb>`, for one service `$SRV.<verb>.<name>`, for one instance `$SRV.<verb>.<name>.<id>`. */
export function controlSubject(verb: ServiceVerb, name = "", id = "", prefix = "$SRV"): string {
  if (name === "" && id === "") return `${prefix}.${verb}`;
  checkName("control subject name", name);
  if (id === "") return `${prefix}.${verb}.${name}`;
  checkName("control subject id", id);
  return `${prefix}.${verb}.${name}.${id}`;
}
