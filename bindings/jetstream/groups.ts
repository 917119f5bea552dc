/**
 * Partitioned consumer groups (orbit.go `pcgroups` v0.2 compatible): a
 * stream's partitions, each consumed by one member at a time in order.
 * The documents, names, partitioning and member loop are the Rust core's
 * (`natsjet::jetstream::groups`), reached through `RawJetStream.group*`;
 * this file only gives them nats.js-style names and types. A member reads
 * like `consumer.consume()`: `GroupMessages` of `GroupMsg`s whose subject
 * has the partition token taken off. Exactly-once per partition
 * (`resumeWith`) is the Rust member's: the wasm calls the function and skips.
 */
import { InvalidArgumentError } from "../errors.js";
import type { ConsumerConfig, RawConsumerMessages } from "../raw.js";
import type { JetStreamClient } from "./client.js";
import { type ConsumerCallbackFn, ConsumerMessages } from "./consumer_messages.js";
import type { JsMsg } from "./jsmsg.js";

/** Static: the stream's subjects start with the partition number. Elastic: a sourced work-queue stream adds it. */
export type ConsumerGroupKind = "static" | "elastic";

/** Partitions given to one member by hand. */
export interface MemberMapping {
  /** The member's name. */
  member: string;
  /** The partitions (0-based) it consumes. */
  partitions: number[];
}

/** A static group's document, as the Go library stores it. */
export interface StaticConsumerGroupConfig {
  /** The number of partitions, and so of members at most. */
  max_members: number;
  /** Filters after the partition token (none: `>`). */
  filters?: string[];
  /** Members, given partitions by the balanced distribution. */
  members?: string[];
  /** Or partitions given to members by hand. */
  member_mappings?: MemberMapping[];
}

/** A filter of an elastic group and the `*` wildcards (1-based) whose tokens make the partitioning key. */
export interface PartitioningFilter {
  /** A subject filter of the stream. */
  filter: string;
  /** `null` or empty: the whole subject is the key. */
  partitioning_wildcards: number[] | null;
}

/** An elastic group's document, as the Go library stores it. */
export interface ElasticConsumerGroupConfig {
  /** The number of partitions, and so of members at most. */
  max_members: number;
  /** `null`: the whole stream. */
  partitioning_filters: PartitioningFilter[] | null;
  /** The group stream's message limit (the Go name, without the "s"). */
  max_buffered_msg?: number;
  /** The group stream's byte limit. */
  max_buffered_bytes?: number;
  /** Members, given partitions by the balanced distribution. */
  members?: string[];
  /** Or partitions given to members by hand. */
  member_mappings?: MemberMapping[];
}

/** A member's consumer as the server sees it. */
export interface ConsumerGroupMemberState {
  /** The member's name. */
  member: string;
  /** The member's consumer exists. */
  active: boolean;
  /** Pull requests waiting on it (one or more per running instance). */
  waiting: number;
  /** The pin id of the instance that receives the member's messages. */
  pinnedClientId: string | null;
}

/** Options of `join`. */
export interface JoinOptions {
  /**
   * The consumer config template (its name, filters and priority fields are
   * replaced). `ack_wait` (nanos; 5 s when unset) sets the pinned TTL and
   * the pull expiry. A partition's message is handed out only after its
   * previous one was acked (strict order per partition, kept across a
   * failover); `max_ack_pending` bounds the messages in flight over the
   * member's partitions (1: one at a time, as the Go `cg` tool; more
   * pipelines the partitions). Elastic groups need explicit acks.
   */
  config?: Pick<Partial<ConsumerConfig>, "ack_wait" | "max_ack_pending" | "max_deliver" | "ack_policy">;
  /** Called with each message instead of iterating. */
  callback?: (msg: GroupMsg) => void;
  /**
   * Exactly-once per partition (Rust's `Member::resume_with`): reads the
   * last stream sequence (`GroupMsg.seq`) whose work the application
   * finished in `partition`, from its own checkpoint, or `undefined` for
   * none. Called once per partition each time the member's consumer is
   * (re)made, before that partition's first message is handed out; what
   * comes again at or below that sequence is acked and not handed out
   * (`GroupMessages.getSkipped()` counts it). A throw or rejection ends the
   * messages with its error. The sequence is of the stream the member reads:
   * the work-queue stream `<stream>-<name>` for elastic groups, the stream
   * for static ones. Needs explicit acks.
   */
  resumeWith?: (partition: number) => Promise<number | undefined> | number | undefined;
}

/** A message of a consumer group: a `JsMsg` (subject without the partition token) and its partition. */
export interface GroupMsg extends JsMsg {
  /** The partition (0-based) it came from; save it with `seq` in a checkpoint for `resumeWith`. */
  readonly partition: number;
}

/** A member's messages (`ConsumerMessages` of `GroupMsg`s) and the redeliveries it skipped. */
export class GroupMessages extends ConsumerMessages {
  readonly #member: RawConsumerMessages;

  /** Made by `ConsumerGroups.join`. */
  constructor(raw: RawConsumerMessages, callback?: (msg: GroupMsg) => void) {
    super(raw, callback as ConsumerCallbackFn | undefined);
    this.#member = raw;
  }

  /** Redeliveries of work already done (by the `resumeWith` checkpoint, or acked here), acked and not handed out. */
  getSkipped(): number {
    return this.#member.skipped();
  }

  /** The messages, in order, until they end (see `ConsumerMessages`). */
  override [Symbol.asyncIterator](): AsyncIterator<GroupMsg> {
    return super[Symbol.asyncIterator]() as AsyncIterator<GroupMsg>;
  }
}

/** Consumer groups of one JetStream context. */
export class ConsumerGroups {
  readonly #js: JetStreamClient;

  constructor(js: JetStreamClient) {
    this.#js = js;
  }

  /** Creates a static group; an existing one with the same document is kept, another refused. */
  async createStatic(stream: string, name: string, config: StaticConsumerGroupConfig): Promise<StaticConsumerGroupConfig> {
    return JSON.parse(await this.#js.raw.groupCreate("static", stream, name, JSON.stringify(config)));
  }

  /** Creates an elastic group and its work-queue stream `<stream>-<name>`. */
  async createElastic(
    stream: string,
    name: string,
    config: ElasticConsumerGroupConfig,
  ): Promise<ElasticConsumerGroupConfig> {
    const doc = { ...config, partitioning_filters: config.partitioning_filters ?? null };
    return JSON.parse(await this.#js.raw.groupCreate("elastic", stream, name, JSON.stringify(doc)));
  }

  /** The group's document. */
  async info(kind: "static", stream: string, name: string): Promise<StaticConsumerGroupConfig>;
  async info(kind: "elastic", stream: string, name: string): Promise<ElasticConsumerGroupConfig>;
  async info(kind: ConsumerGroupKind, stream: string, name: string): Promise<unknown> {
    return JSON.parse(await this.#js.raw.groupConfig(kind, stream, name));
  }

  /** Deletes a group: its document, then its consumers (static) or stream (elastic). */
  delete(kind: ConsumerGroupKind, stream: string, name: string): Promise<void> {
    return this.#js.raw.groupDelete(kind, stream, name);
  }

  /** The groups of `kind` on `stream`. */
  list(kind: ConsumerGroupKind, stream: string): Promise<string[]> {
    return this.#js.raw.groupList(kind, stream);
  }

  /** Adds members to an elastic group; resolves to its members. */
  addMembers(stream: string, name: string, members: string[]): Promise<string[]> {
    return this.#js.raw.groupMembership(true, stream, name, members);
  }

  /** Drops members from an elastic group; resolves to the members left. */
  dropMembers(stream: string, name: string, members: string[]): Promise<string[]> {
    return this.#js.raw.groupMembership(false, stream, name, members);
  }

  /** Gives an elastic group's partitions to members by hand (replacing its members). */
  setMemberMappings(stream: string, name: string, mappings: MemberMapping[]): Promise<void> {
    return this.#js.raw.groupMappings(stream, name, JSON.stringify({ mappings }));
  }

  /** Removes an elastic group's mappings. */
  deleteMemberMappings(stream: string, name: string): Promise<void> {
    return this.#js.raw.groupMappings(stream, name, undefined);
  }

  /** Moves a member's pin: another waiting instance gets its messages. */
  stepDown(kind: ConsumerGroupKind, stream: string, name: string, member: string): Promise<void> {
    return this.#js.raw.groupStepDown(kind, stream, name, member);
  }

  /** Every member of the group and its consumer's state (which instance is pinned). */
  async members(kind: ConsumerGroupKind, stream: string, name: string): Promise<ConsumerGroupMemberState[]> {
    const rows = await this.#js.raw.groupMembers(kind, stream, name);
    return rows.map(([member, active, waiting, pinnedClientId]) => ({ member, active, waiting, pinnedClientId }));
  }

  /**
   * Joins a group as an instance of `member` and consumes its partitions:
   * `GroupMsg`s, each with its partition. The messages end when the group
   * is deleted, or with an error when its document changes in a way the
   * member cannot follow; `stop()` leaves. With `opts.resumeWith`, what the
   * application's checkpoint says is done in a partition is acked and not
   * handed out (exactly-once per partition).
   */
  async join(
    kind: ConsumerGroupKind,
    stream: string,
    name: string,
    member: string,
    opts: JoinOptions = {},
  ): Promise<GroupMessages> {
    const c = opts.config ?? {};
    if (opts.resumeWith !== undefined && typeof opts.resumeWith !== "function") {
      throw new InvalidArgumentError("resumeWith: expected a function");
    }
    const ackWait = c.ack_wait === undefined ? undefined : c.ack_wait / 1_000_000;
    const ackNone = c.ack_policy === "none";
    const raw = await this.#js.raw.groupJoin(
      kind,
      stream,
      name,
      member,
      ackWait,
      c.max_ack_pending,
      c.max_deliver,
      ackNone,
      opts.resumeWith,
    );
    return new GroupMessages(raw, opts.callback);
  }
}

/** The consumer groups of a JetStream context. */
export function consumerGroups(js: JetStreamClient): ConsumerGroups {
  return new ConsumerGroups(js);
}
