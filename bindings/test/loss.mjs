// Loss accounting for fault tests: which ids were published, which the
// server acknowledged, which consumers processed and acked (and how often),
// and the one line every fault test prints: published / acked by the
// server / consumed and acked / redelivered / duplicates / lost. Lost
// counts server-acked ids never consumed; duplicates, extra deliveries of
// an id that were processed. Also an acked publisher that retries with
// message ids. The Rust twins are tests/common/loss.rs and retry_publish.rs.
import assert from "node:assert/strict";

export class LossLedger {
  #published = new Set();
  #serverAcked = new Set();
  #consumed = new Map();
  #redelivered = 0;

  published(id) {
    this.#published.add(id);
  }

  serverAcked(id) {
    this.#serverAcked.add(id);
  }

  /** A consumer processed `id` (delivery count `delivered`) and acked it. */
  consumed(id, delivered) {
    this.#consumed.set(id, (this.#consumed.get(id) ?? 0) + 1);
    if (delivered > 1) this.#redelivered++;
  }

  get consumedCount() {
    return this.#consumed.size;
  }

  report() {
    let duplicates = 0;
    for (const n of this.#consumed.values()) duplicates += n - 1;
    const lost = [...this.#serverAcked].filter((id) => !this.#consumed.has(id));
    return {
      published: this.#published.size,
      serverAcked: this.#serverAcked.size,
      consumed: this.#consumed.size,
      redelivered: this.#redelivered,
      duplicates,
      lost: lost.length,
      lostIds: lost.slice(0, 20),
    };
  }

  /** Prints the line for `test`; asserts nothing lost and at most `maxDuplicates` duplicates. */
  check(test, maxDuplicates) {
    const r = this.report();
    console.log(
      `fault ${test}: published ${r.published} / acked by server ${r.serverAcked} / consumed and acked ${r.consumed} / ` +
        `redelivered ${r.redelivered} / duplicates ${r.duplicates} / lost ${r.lost}`,
    );
    assert.equal(r.lost, 0, `${test}: lost ids ${r.lostIds}`);
    assert.ok(r.duplicates <= maxDuplicates, `${test}: ${r.duplicates} duplicates, at most ${maxDuplicates}`);
    return r;
  }
}

/**
 * Publishes ids `0..count` (payload and message id: the id) to
 * `${stream}.${id % 8}` with acks, 64 at a time, each until acknowledged:
 * a publish whose ack does not come is sent again with the same id, so the
 * stream stores it once. `at(id)` runs before an id is first sent.
 */
export async function publishWithRetries(js, stream, count, ledger, at = () => {}) {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const id = next++;
      ledger.published(id);
      at(id);
      for (;;) {
        try {
          await js.publish(`${stream}.${id % 8}`, String(id), { msgID: String(id), timeout: 1000 });
          ledger.serverAcked(id);
          break;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 50)); // back off, then send it again
        }
      }
    }
  };
  await Promise.all(Array.from({ length: 64 }, lane));
}
