// Lab 6: time to live. The same telemetry written at a steady rate into a container that keeps
// everything (mistake.mjs) and one with a defaultTtl (fix.mjs), with time compressed (a second
// stands for a day): the documents and KB each holds as the days pass, from the emulator's admin
// API and the container's quota headers; what the writes cost in each; and what the cleanup job
// the first design ends up needing costs, against the nothing TTL charges.
import * as mistake from "./mistake.mjs";
import * as fix from "./fix.mjs";
import { readings } from "../../lib/telemetry.mjs";
import { ru, times } from "../../lib/report.mjs";

const DEVICES = 20;
const PER_DAY = 6;    // a reading every 4 hours per device
const SLOTS = 4;      // the day's readings are written in 4 waves, so the rate is steady

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export default {
  title: "time to live: storage that grows without bound, and a container that forgets",
  flags: [],
  async run({ emulator, report, quick }) {
    const days = quick ? 10 : 30;
    const keepDays = quick ? 3 : 7;
    const sampleEvery = quick ? 1 : 3;
    const perDay = DEVICES * PER_DAY;
    const data = readings({ tenants: 1, devicesPerTenant: DEVICES, days, perDay: PER_DAY });
    const dayMs = fix.DAY_SECONDS * 1000;
    report.note(`${DEVICES} devices write ${perDay} readings a day for ${days} days; a second stands for a day. ` +
      `One container keeps everything, the other has defaultTtl = ${keepDays} days (${keepDays * fix.DAY_SECONDS} s here).`);

    const { database } = await emulator.client().databases.createIfNotExists({ id: "telemetry" });
    const { container: forever } = await database.containers.create(mistake.containerDefinition("withoutTtl"));
    const { container: window } = await database.containers.create(fix.containerDefinition("withTtl", keepDays));
    const foreverPath = "dbs/telemetry/colls/withoutTtl";
    const windowPath = "dbs/telemetry/colls/withTtl";

    const charges = { forever: [], window: [] };
    const samples = [];
    const started = Date.now();
    for (let day = 0; day < days; day++) {
      const today = data.slice(day * perDay, (day + 1) * perDay);
      for (let slot = 0; slot < SLOTS; slot++) {
        await sleep(started + day * dayMs + (slot * dayMs) / SLOTS - Date.now());
        const wave = today.slice((slot * perDay) / SLOTS, ((slot + 1) * perDay) / SLOTS);
        const [a, b] = await Promise.all([
          Promise.all(wave.map((reading) => mistake.writeReading(forever, reading))),
          Promise.all(wave.map((reading) => fix.writeReading(window, reading))),
        ]);
        charges.forever.push(...a);
        charges.window.push(...b);
      }
      if ((day + 1) % sampleEvery === 0) {
        await sleep(started + (day + 1) * dayMs - Date.now());
        samples.push(await sample(emulator, day + 1, [forever, foreverPath], [window, windowPath]));
      }
    }
    const written = days * perDay;

    report.table(["day", "no TTL: documents", "no TTL: KB", `defaultTtl ${keepDays} days: documents`, "TTL: KB"],
      samples.map((s) => [s.day, s.forever.documents, s.forever.kb, s.window.documents, s.window.kb]));

    // What the writes cost, and what each design pays to get rid of old readings.
    const sum = (values) => values.reduce((total, value) => total + value, 0);
    const writesForever = sum(charges.forever);
    const writesWindow = sum(charges.window);
    const perWriteForever = writesForever / charges.forever.length;
    const perWriteWindow = writesWindow / charges.window.length;
    const windowSeen = (await partitionsOf(emulator, windowPath)).requestUnits;
    const expiryCharge = windowSeen - writesWindow;
    const atEnd = samples[samples.length - 1];
    const expired = written - atEnd.window.documents;
    const cutoff = Math.floor(Date.now() / 1000) - keepDays * fix.DAY_SECONDS;
    const job = await mistake.deleteOlderThan(forever, cutoff);
    const afterJob = await partitionsOf(emulator, foreverPath);
    report.table(["", "no TTL", `defaultTtl ${keepDays} days`], [
      ["writes", charges.forever.length, charges.window.length],
      ["RU of the writes", ru(writesForever), ru(writesWindow)],
      ["RU per write", ru(perWriteForever), ru(perWriteWindow)],
      ["old readings removed", `${job.deleted.toLocaleString("en-US")} by a cleanup job`, `${expired.toLocaleString("en-US")} expired`],
      ["RU to remove them", ru(job.requestCharge), ru(expiryCharge) + 0],  // + 0: a -0 difference prints as 0
      ["documents left", afterJob.documents, atEnd.window.documents],
    ]);
    const growth = atEnd.forever.kb / atEnd.window.kb;
    report.note(`After ${days} days the container without TTL holds ${times(growth)} the KB of the one with TTL, and the gap ` +
      "grows every day; the cleanup job brings it back, for RU that TTL never charges.");

    // Checks: the growth is linear, the TTL container plateaus at about keepDays of readings. (_ts
    // counts whole seconds, a "day" here, so an item lives between keepDays - 1 and keepDays, and
    // the sweeper removes it within about a second: the plateau is keepDays give or take a day.)
    report.check("without TTL, every reading written is still stored at every sample",
      samples.every((s) => s.forever.documents === s.day * perDay),
      samples.map((s) => `${s.forever.documents}/${s.day * perDay}`).join(" "));
    report.check("the quota header counts the same documents as the admin API",
      samples.every((s) => s.forever.quotaCount === s.forever.documents),
      samples.map((s) => `${s.forever.quotaCount}/${s.forever.documents}`).join(" "));
    const middle = samples[Math.floor((samples.length - 1) / 2)];
    report.within("without TTL, the KB grow in proportion to the days (last/middle against their days)",
      (atEnd.forever.kb / middle.forever.kb) / (atEnd.day / middle.day), { min: 0.9, max: 1.1 });
    const early = samples.filter((s) => s.day <= keepDays - 2);
    report.check(`before any reading is ${keepDays - 1} days old, the TTL container holds them all`,
      early.every((s) => s.window.documents === s.forever.documents),
      early.map((s) => `${s.window.documents}/${s.forever.documents}`).join(" "));
    const plateau = samples.filter((s) => s.day >= keepDays + 2);
    for (const s of plateau) {
      report.within(`day ${s.day}: the TTL container holds about ${keepDays} days of readings (in days)`,
        s.window.documents / perDay, { min: keepDays - 1.5, max: keepDays + 1.5 });
    }
    report.within("the TTL container's KB at the end against its KB when it reached the plateau",
      atEnd.window.kb / plateau[0].window.kb, { min: 0.6, max: 1.6 });
    report.within(`the container without TTL holds about ${days}/${keepDays} times the KB (ratio)`,
      growth, { min: days / (keepDays + 1.5), max: days / (keepDays - 1.5) });
    report.within("a write costs the same in both containers (relative difference)",
      Math.abs(perWriteWindow - perWriteForever) / perWriteForever, { max: 0.01 });
    report.within("a write of a small reading costs about 5 RU", perWriteForever, { min: 4, max: 7 });
    report.within("the emulator charged no RU for expiring readings (its RU count less the writes')",
      Math.abs(expiryCharge), { max: 0.05 });
    report.within("the TTL container expired all but about keepDays of readings (in days)",
      expired / perDay, { min: days - keepDays - 1.5, max: days - keepDays + 1.5 });
    report.within("the cleanup job's query on _ts found the readings older than keepDays (in days)",
      job.deleted / perDay, { min: days - keepDays - 1.5, max: days - keepDays + 1.5 });
    report.within("the cleanup job pays about a write per reading it deletes (RU per delete)",
      job.requestCharge / job.deleted, { min: 4, max: 8 });
    report.within("after the job, the container without TTL holds about keepDays of readings (in days)",
      afterJob.documents / perDay, { min: keepDays - 1.5, max: keepDays + 1.5 });

    report.lesson("Without a TTL, telemetry storage grows by the same amount every day for as long as the devices " +
      "write, and removing it later is a job that pays a write's RU for every reading. A defaultTtl holds the container " +
      "at the window you keep, for the same RU per write, and the expiry is charged to no request.");
    report.exercise("In lab.mjs, set keepDays to 2 in quick mode: predict the TTL container's plateau in documents " +
      "and its KB against the other's at the end, then run again. Then, in fix.mjs's writeReading, give every tenth " +
      "reading `ttl: -1` (kept forever): predict whether the TTL container still plateaus, and which check says so.");
  },
};

// The documents and KB of both containers: documents from the admin API, KB from the quota headers
// of a container read (x-ms-resource-usage: documentsSize is in KB, as the portal shows it).
async function sample(emulator, day, ...containers) {
  const [forever, window] = await Promise.all(containers.map(async ([container, path]) => {
    const partitions = await partitionsOf(emulator, path);
    const { headers } = await container.read({ populateQuotaInfo: true });
    const usage = Object.fromEntries(String(headers["x-ms-resource-usage"]).split(";").filter(Boolean)
      .map((pair) => pair.split("=")).map(([k, v]) => [k.trim(), Number(v)]));
    return { documents: partitions.documents, kb: usage.documentsSize, quotaCount: usage.documentsCount };
  }));
  return { day, forever, window };
}

// A container's physical partitions from /_cosmolite/partitions, summed.
async function partitionsOf(emulator, path) {
  const { containers } = await emulator.admin("/_cosmolite/partitions");
  const found = containers.find((c) => c.container === path);
  if (!found) throw new Error(`no ${path} in /_cosmolite/partitions`);
  const total = (key) => found.physicalPartitions.reduce((sum, p) => sum + p[key], 0);
  return { documents: total("documents"), bytes: total("bytes"), requestUnits: total("requestUnits") };
}
