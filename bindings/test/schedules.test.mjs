// Message schedules (ADR-51) through the built package against a real
// nats-server, side by side with nats.js 3.4: the same options make the
// same schedule message whichever client published it, it fires the same
// way, a cancellation from one client stops a schedule made by the other,
// a stream without allow_msg_schedules refuses both alike, the server
// refuses a bad schedule with its code for both alike, and natsjet refuses
// before sending what nats.js does.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { InvalidArgumentError, JetStreamApiError } from "natsjet";
import { bothClients, startJetStreamServer } from "./harness.mjs";

let server, js, jsm, theirJs, close;
before(async () => {
  server = await startJetStreamServer();
  ({ js, jsm, theirJs, close } = await bothClients(server));
});
after(async () => {
  await close?.();
  await server?.close();
});

async function stream(name, schedules = true) {
  const subjects = [`${name.toLowerCase()}.>`];
  await jsm.streams.add({ name, subjects, allow_msg_schedules: schedules, allow_msg_ttl: true });
}

/** The last message on `subject` in `stream`, or null. */
async function last(stream, subject) {
  return jsm.streams.getMessage(stream, { last_by_subj: subject });
}

/** Messages per subject of `stream` under `filter`. */
async function counts(stream, filter) {
  return (await jsm.streams.info(stream, { subjects_filter: filter })).state.subjects ?? {};
}

/** Resolves once `check()` resolves true; rejects after 5 s. */
async function until(check) {
  for (const deadline = Date.now() + 5000; !(await check()); await sleep(50)) {
    if (Date.now() > deadline) throw new Error(`condition not met in 5 s: ${check}`);
  }
}

/** A message's headers as an object, timestamps of the next firing as "<time>". */
function headersOf(m, client) {
  const out = {};
  for (const k of m.header.keys()) {
    const v = m.header.get(k);
    out[k] = k === "Nats-Schedule-Next" && v !== "purge" ? "<time>" : v.replace(client, "<client>");
  }
  return out;
}

describe("message schedules", () => {
  test("the same options make the same schedule for both clients, and it fires the same way", async () => {
    await stream("SAME");
    const at = new Date(Date.now() + 1500);
    const kinds = {
      at: { specification: at, ttl: "5m" },
      every: { specification: { every: "1s" }, rollup: "sub" },
      cron: { specification: { cron: "* * * * * *" }, timezone: "America/New_York" },
      hourly: { specification: { predefined: "@hourly" }, timezone: "UTC" },
      raw: { specification: "@every 1s", source: "same.<client>.source" },
    };
    for (const [client, lib] of [["jet", js], ["njs", theirJs]]) {
      await lib.publish(`same.${client}.source`, "sampled");
      for (const [kind, options] of Object.entries(kinds)) {
        const schedule = { ...options, target: `same.${client}.out.${kind}` };
        if (schedule.source) schedule.source = schedule.source.replace("<client>", client);
        await lib.publish(`same.${client}.${kind}`, `body of ${kind}`, { schedule });
      }
    }
    // The schedules as stored (the @at one fires at 1.5 s: read it before).
    for (const kind of Object.keys(kinds)) {
      const [mine, other] = [await last("SAME", `same.jet.${kind}`), await last("SAME", `same.njs.${kind}`)];
      assert.deepEqual(headersOf(mine, "jet"), headersOf(other, "njs"), `the ${kind} schedule's headers`);
      assert.equal(mine.string(), other.string());
    }
    assert.match((await last("SAME", "same.jet.at")).header.get("Nats-Schedule"), /^@at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await until(async () => (await last("SAME", "same.njs.out.at")) !== null && (await last("SAME", "same.jet.out.at")) !== null);
    await sleep(1200);
    for (const kind of ["at", "every", "cron", "raw"]) {
      const [mine, other] = [await last("SAME", `same.jet.out.${kind}`), await last("SAME", `same.njs.out.${kind}`)];
      assert.deepEqual(headersOf(mine, "jet"), headersOf(other, "njs"), `what the ${kind} schedule produced`);
      assert.equal(mine.string(), other.string(), kind);
    }
    assert.equal((await last("SAME", "same.jet.out.raw")).string(), "sampled");
    const fired = await counts("SAME", "same.*.out.>");
    for (const client of ["jet", "njs"]) {
      assert.equal(fired[`same.${client}.out.at`], 1, "once");
      assert.equal(fired[`same.${client}.out.every`], 1, "rolled up");
      assert.ok(fired[`same.${client}.out.cron`] >= 2, `cron fires every second: ${JSON.stringify(fired)}`);
      assert.equal(fired[`same.${client}.out.hourly`], undefined);
    }
    const left = await counts("SAME", "same.*.at");
    assert.deepEqual(left, {}, "one-shot schedules are gone once fired");
  });

  test("a cancellation from one client stops a schedule made by the other", async () => {
    await stream("STOP");
    const soon = () => new Date(Date.now() + 2000);
    const { seq } = await theirJs.publish("stop.njs", "x", { schedule: { specification: soon(), target: "stop.out.njs" } });
    await js.publish("stop.jet", "x", { schedule: { specification: soon(), target: "stop.out.jet" } });
    await js.publish("stop.cancelled.njs", "by natsjet", {
      cancelSchedule: { scheduleSubject: "stop.njs" },
      expect: { lastSubjectSequence: seq, lastSubjectSequenceSubject: "stop.njs" },
    });
    await theirJs.publish("stop.cancelled.jet", "by nats.js", { cancelSchedule: { scheduleSubject: "stop.jet" } });
    await sleep(2800);
    assert.deepEqual(await counts("STOP", ">"), { "stop.cancelled.njs": 1, "stop.cancelled.jet": 1 });
  });

  test("a stream without allow_msg_schedules refuses schedules and cancellations alike", async () => {
    await stream("OFF", false);
    for (const lib of [js, theirJs]) {
      const attempts = [
        lib.publish("off.s", "x", { schedule: { specification: { every: "5s" }, target: "off.t" } }),
        lib.publish("off.c", "x", { cancelSchedule: { scheduleSubject: "off.s" } }),
      ];
      for (const attempt of attempts) {
        await assert.rejects(attempt, (e) => {
          assert.equal(e.constructor.name, "JetStreamApiError");
          assert.deepEqual([e.code, e.message], [10188, "message schedules is disabled"]);
          return true;
        });
      }
    }
    assert.equal((await jsm.streams.info("OFF")).state.messages, 0);
  });

  test("the server refuses a bad schedule with its code, for both clients alike", async () => {
    await stream("JUDGED");
    const target = "judged.out";
    const refused = [
      [{ specification: { cron: "0 0 5 * *" }, target }, 10189],
      [{ specification: { at: "tomorrow" }, target }, 10189],
      [{ specification: { every: "5s" }, target, timezone: "UTC" }, 10189],
      [{ specification: { cron: "0 0 5 * * *" }, target, timezone: "Mars/Olympus" }, 10223],
      [{ specification: { predefined: "@daily" }, target: "judged.s" }, 10190],
      [{ specification: { predefined: "@daily" }, target, source: target }, 10203],
      [{ specification: { predefined: "@daily" }, target, ttl: "soon" }, 10191],
    ];
    for (const [schedule, code] of refused) {
      for (const client of [js, theirJs]) {
        const attempt = client.publish("judged.s", "x", { schedule });
        await assert.rejects(attempt, (e) => {
          assert.equal(e.code, code, JSON.stringify(schedule));
          return client === theirJs || e instanceof JetStreamApiError;
        });
      }
    }
    await assert.rejects(js.publish("judged.x", "x", { cancelSchedule: { scheduleSubject: "bad subject" } }), (e) => {
      return e instanceof JetStreamApiError && e.code === 10212;
    });
    assert.equal((await jsm.streams.info("JUDGED")).state.messages, 0, "nothing was stored");
  });

  test("what nats.js refuses is refused before sending", async () => {
    await stream("LOCAL");
    const refused = [
      { schedule: { specification: { predefined: "@daily" }, target: "local.out" }, cancelSchedule: { scheduleSubject: "local.x" } },
      { cancelSchedule: { scheduleSubject: "local.s" } },
      { schedule: { specification: { every: "500ms" }, target: "local.out" } },
      { schedule: { specification: { every: "5 minutes" }, target: "local.out" } },
    ];
    for (const opts of refused) {
      await assert.rejects(js.publish("local.s", "x", opts), InvalidArgumentError, JSON.stringify(opts));
      await assert.rejects(theirJs.publish("local.s", "x", opts), Error, JSON.stringify(opts));
    }
    assert.equal((await jsm.streams.info("LOCAL")).state.messages, 0, "nothing was written");
  });
});
