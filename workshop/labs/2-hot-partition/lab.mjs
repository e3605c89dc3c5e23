// Lab 2: a hot partition. A container of 2,000 RU/s over 4 physical partitions (500 RU/s each),
// --rate-limit on, telemetry offered at about 1,200 RU/s: well under the container's throughput.
// Keyed by tenant (mistake.mjs) the big tenant's 80% lands on one partition and gets 429s; keyed
// by device (fix.mjs) the same load spreads and nothing is throttled.
import * as mistake from "./mistake.mjs";
import * as fix from "./fix.mjs";
import { ingestSecond } from "./ingest.mjs";
import { ru } from "../../lib/report.mjs";

const THROUGHPUT = 2000;
const READINGS_PER_SECOND = 240;  // about 1,200 RU/s of ~5 RU creates
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A second's readings: 80% from tenant "big", the rest from 40 small tenants; one per device.
function readingsOfSecond(second) {
  const readings = [];
  for (let i = 0; i < READINGS_PER_SECOND; i++) {
    const big = i % 5 !== 0;
    const tenantId = big ? "big" : `small${i % 40}`;
    const deviceId = `${tenantId}-d${i}`;
    readings.push({ id: `${second}-${i}`, tenantId, deviceId, ts: Date.now(), temperature: 20 + (i % 9) });
  }
  return readings;
}

export default {
  title: "a hot partition gets 429s while the container has RU/s to spare",
  flags: ["--rate-limit", "--min-physical-partitions", "4"],
  async run({ emulator, report, quick }) {
    const seconds = quick ? 3 : 10;
    const client = emulator.client({ retry: false });
    const { database } = await client.databases.createIfNotExists({ id: "telemetry" });
    const rows = [];
    const results = {};
    for (const [name, design] of [["by tenant", mistake], ["by device", fix]]) {
      const id = name.replace(" ", "-");
      const { container } = await database.containers.create({ id, partitionKey: design.partitionKey, throughput: THROUGHPUT });
      let stored = 0, throttled = 0, charge = 0;
      const waits = [];
      for (let second = 0; second < seconds; second++) {
        const startedAt = Date.now();
        for (const outcome of await ingestSecond(container, readingsOfSecond(second), design.keyOf)) {
          if (outcome.stored) { stored++; charge += outcome.requestCharge; } else { throttled++; waits.push(outcome.retryAfterMs); }
        }
        await sleep(Math.max(0, 1000 - (Date.now() - startedAt)));
      }
      const { containers } = await emulator.admin("/_cosmolite/partitions");
      const seen = containers.find((c) => c.container === `dbs/telemetry/colls/${id}`);
      const perPartition = seen.physicalPartitions.map((p) => p.requestUnits);
      const adminThrottled = seen.physicalPartitions.reduce((sum, p) => sum + p.throttledRequests, 0);
      const hottestShare = Math.max(...perPartition) / perPartition.reduce((a, b) => a + b, 0);
      results[name] = { stored, throttled, charge, waits, adminThrottled, hottestShare, partitions: perPartition.length, perPartition };
      rows.push([name, seen.physicalPartitions.length, seen.throughputPerPartition, ru(charge / seconds),
        `${Math.round(hottestShare * 100)}%`, stored, throttled, waits.length ? Math.max(...waits) : "-"]);
    }
    report.note(`${READINGS_PER_SECOND} readings a second for ${seconds} s, 80% from one tenant, into a container of ` +
      `${THROUGHPUT.toLocaleString("en-US")} RU/s; no SDK retries, so every 429 shows.`);
    report.table(["partition key", "physical partitions", "RU/s each", "RU/s consumed", "hottest partition's share",
      "stored", "429s", "max x-ms-retry-after-ms"], rows);

    const hot = results["by tenant"], spread = results["by device"];
    report.within("the load is well under the container's throughput", hot.charge / seconds + hot.throttled * 5 / seconds,
      { max: 0.8 * THROUGHPUT });
    report.check("4 physical partitions of 500 RU/s", hot.partitions === 4 && spread.partitions === 4);
    report.within("keyed by tenant: the hottest partition takes most of the RU", hot.hottestShare, { min: 0.6 });
    report.within("keyed by tenant: a good share of the writes get 429", hot.throttled / (hot.stored + hot.throttled), { min: 0.2, max: 0.7 });
    report.check("keyed by tenant: the admin API counts the same 429s", hot.adminThrottled === hot.throttled,
      `${hot.adminThrottled} and ${hot.throttled}`);
    report.check("every 429 says how long to wait (x-ms-retry-after-ms, under a second)",
      hot.waits.every((ms) => ms > 0 && ms <= 1000), hot.waits.slice(0, 5).join(", "));
    report.within("keyed by device: the hottest partition takes about a quarter", spread.hottestShare, { min: 0.2, max: 0.4 });
    report.check("keyed by device: no 429", spread.throttled === 0 && spread.adminThrottled === 0, `${spread.throttled}`);
    report.check("keyed by device: everything stored", spread.stored === seconds * READINGS_PER_SECOND);

    report.lesson("A container's RU/s are split evenly over its physical partitions, so a partition key that sends most " +
      "writes to one value is throttled at a quarter of the throughput here while three partitions idle. Pick a key with " +
      "many values that share the load (the device), and watch 429s: the SDKs retry them silently by default.");
    report.exercise("Raise the container to 8,000 RU/s: predict whether keyed by tenant " +
      "still gets 429s, run it, and compare the cost. Then try a hierarchical key [/tenantId, /deviceId]: where do the " +
      "big tenant's readings land (GET /_cosmolite/partitions), and why?");
  },
};
