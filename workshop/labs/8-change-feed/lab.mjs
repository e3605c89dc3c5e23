// Lab 8: a change-feed consumer of the telemetry. Two consumers read the same feed, each with its own
// checkpoint (a lease document holding the feed's continuation token, saved after each page): the
// naive handler (mistake.mjs) and the idempotent one (fix.mjs), both applying an anomaly rule (a hot
// reading raises an alert). Each "crashes" after handling a page and before checkpointing it; more
// readings arrive while it is down; it restarts from its checkpoint and sees that page again. What
// each one read, saw twice, counted and alerted, and the RU its feed reads cost.
import * as mistake from "./mistake.mjs";
import * as fix from "./fix.mjs";
import { bulkLoad, readings } from "../../lib/telemetry.mjs";
import { ru } from "../../lib/report.mjs";

class SimulatedCrash extends Error {}

export default {
  title: "the change feed: an at-least-once consumer, a crash, and an idempotent handler",
  flags: [],
  async run({ emulator, report, quick }) {
    const shape = quick ? { tenants: 2, devicesPerTenant: 10, days: 5, perDay: 4 } : { tenants: 5, devicesPerTenant: 10, days: 12, perDay: 10 };
    const pageSize = quick ? 50 : 250;
    const crashAfterPages = quick ? 3 : 6;
    const data = readings(shape);
    const firstHalf = data.slice(0, data.length / 2);
    const secondHalf = data.slice(data.length / 2);
    const hot = data.filter((r) => r.temperature > mistake.HOT_CELSIUS);
    const devices = [...new Set(data.map((r) => r.deviceId))];
    report.note(`${data.length.toLocaleString("en-US")} readings of ${devices.length} devices, ${hot.length} of them above ` +
      `${mistake.HOT_CELSIUS} °C. Each consumer checkpoints every ${pageSize} changes and crashes after handling its ` +
      `page ${crashAfterPages}, before checkpointing it; the second half of the readings arrives while it is down.`);

    const { database } = await emulator.client().databases.createIfNotExists({ id: "plant" });
    const { container: feed } = await database.containers.create({ id: "readings", partitionKey: { paths: ["/deviceId"] } });
    const { container: leases } = await database.containers.create({ id: "leases", partitionKey: { paths: ["/id"] } });
    await bulkLoad(feed, firstHalf, (r) => r.deviceId);

    const consumers = [];
    for (const [name, design] of [["mistake", mistake], ["fix", fix]]) {
      const { container: stats } = await database.containers.create({ id: `tiles-${name}`, partitionKey: { paths: ["/deviceId"] } });
      const { container: alerts } = await database.containers.create({ id: `alerts-${name}`, partitionKey: { paths: ["/deviceId"] } });
      // The device registry made each device's tile before any reading.
      await bulkLoad(stats, devices.map((deviceId) => ({ id: deviceId, deviceId, readings: 0, lastLsn: 0 })), (t) => t.deviceId);
      const seen = new Map();  // how many times each reading reached the handler
      const inner = design.handler({ stats, alerts });
      const handle = async (reading) => {
        seen.set(reading.id, (seen.get(reading.id) ?? 0) + 1);
        await inner(reading);
      };
      consumers.push({ name, design, stats, alerts, seen, handle });
    }

    // First runs: each consumer reads from the beginning and crashes between handling and checkpoint.
    for (const consumer of consumers) {
      try {
        await consumer.design.consume({
          readings: feed, leases, name: consumer.name, handle: consumer.handle, pageSize,
          beforeCheckpoint: (progress) => {
            consumer.firstRun = progress;
            if (progress.changes >= crashAfterPages * pageSize) throw new SimulatedCrash(`crashed after ${progress.changes} changes`);
          },
        });
        throw new Error(`${consumer.name}: the consumer caught up without crashing`);
      } catch (error) {
        if (!(error instanceof SimulatedCrash)) throw error;
      }
    }

    // More readings arrive while both are down; then each restarts from its checkpoint.
    await bulkLoad(feed, secondHalf, (r) => r.deviceId);
    for (const consumer of consumers) {
      consumer.restart = await consumer.design.consume({ readings: feed, leases, name: consumer.name, handle: consumer.handle, pageSize });
    }
    // And once more with nothing new: a poll that finds nothing (304).
    const idle = await fix.consume({ readings: feed, leases, name: "fix", handle: consumers[1].handle, pageSize });

    const rows = [];
    for (const c of consumers) {
      const twice = [...c.seen].filter(([, times]) => times >= 2).map(([id]) => id);
      c.changes = [...c.seen.values()].reduce((a, b) => a + b, 0);
      c.twice = twice.length;
      c.hotTwice = twice.filter((id) => hot.some((r) => r.id === id)).length;
      c.maxSeen = Math.max(...c.seen.values());
      c.distinct = c.seen.size;
      const { resources: [counted] } = await c.stats.items.query("SELECT VALUE SUM(c.readings) FROM c").fetchAll();
      c.counted = counted;
      c.alertCount = (await partitionsOf(emulator, `dbs/plant/colls/alerts-${c.name}`)).documents;
      c.feedCharge = c.firstRun.feedCharge + c.restart.feedCharge;
      c.pages = Math.ceil(c.firstRun.changes / pageSize) + Math.ceil(c.restart.changes / pageSize) + 1;  // + the 304 ending the restart
      rows.push([c.name === "mistake" ? "naive handler (mistake)" : "idempotent handler (fix)", c.firstRun.changes, c.restart.changes,
        c.changes, c.twice, c.counted, c.alertCount, ru(c.feedCharge)]);
    }
    report.table(["consumer", "changes before the crash", "after the restart", "changes read", "seen twice",
      "readings counted", "alerts", "feed RU"], rows);
    report.note(`The truth: ${data.length.toLocaleString("en-US")} readings, ${hot.length} hot; ${consumers[0].hotTwice} of the changes seen twice were hot. ` +
      `A poll with nothing new: ${idle.changes} changes, ${ru(idle.feedCharge)} RU.`);

    const [naive, idempotent] = consumers;
    for (const c of consumers) {
      report.check(`${c.name}: the first run handled ${crashAfterPages} pages, then crashed`, c.firstRun.changes === crashAfterPages * pageSize,
        `${c.firstRun.changes}`);
      report.check(`${c.name}: the restart read from the checkpoint: the crashed page again, then the rest`,
        c.restart.changes === data.length - (crashAfterPages - 1) * pageSize, `${c.restart.changes}`);
      report.check(`${c.name}: every reading reached the handler, none more than twice`,
        c.distinct === data.length && c.maxSeen === 2, `${c.distinct} distinct, at most ${c.maxSeen} times`);
      report.check(`${c.name}: the changes seen twice are the crashed page`, c.twice === pageSize && c.changes === data.length + pageSize,
        `${c.twice} twice, ${c.changes} read`);
      report.within(`${c.name}: the feed costs about 1 RU a page plus its KB (RU per page)`, c.feedCharge / c.pages,
        { min: 1, max: quick ? 4 : 12 });
    }
    report.check("the crashed page held hot readings", naive.hotTwice > 0, `${naive.hotTwice}`);
    report.check("naive: readings counted = readings + the changes seen twice", naive.counted === data.length + naive.twice,
      `${naive.counted}, expected ${data.length + naive.twice}`);
    report.check("naive: alerts = hot readings + the hot ones seen twice", naive.alertCount === hot.length + naive.hotTwice,
      `${naive.alertCount}, expected ${hot.length + naive.hotTwice}`);
    report.check("idempotent: every reading counted once", idempotent.counted === data.length, `${idempotent.counted}`);
    report.check("idempotent: one alert per hot reading", idempotent.alertCount === hot.length, `${idempotent.alertCount}`);
    report.check("both consumers read the same feed for the same RU",
      Math.abs(naive.feedCharge - idempotent.feedCharge) <= 0.01 * naive.feedCharge, `${ru(naive.feedCharge)} and ${ru(idempotent.feedCharge)}`);
    report.check("a poll with nothing new reads no change", idle.changes === 0, `${idle.changes}`);
    report.within("a poll with nothing new (304) costs about 1 RU", idle.feedCharge, { min: 0.5, max: 2 });

    report.lesson("The change feed with checkpoints is at-least-once: whatever was handled after the last checkpoint " +
      "is handled again after a crash, so a handler that counts or appends double-counts. Make the handler idempotent " +
      "(documents named after the change, updates guarded by the change's _lsn) and the replay changes nothing.");
    report.exercise("In lab.mjs, checkpoint every 10 changes instead (pageSize 10) and crash after page 15: predict the " +
      "changes seen twice and the feed RU, then run again. Then, in fix.mjs, drop the patch's condition: which number " +
      "of the fix's row goes wrong?");
  },
};

// A container's physical partitions from /_cosmolite/partitions, summed.
async function partitionsOf(emulator, path) {
  const { containers } = await emulator.admin("/_cosmolite/partitions");
  const found = containers.find((c) => c.container === path);
  if (!found) throw new Error(`no ${path} in /_cosmolite/partitions`);
  const total = (key) => found.physicalPartitions.reduce((sum, p) => sum + p[key], 0);
  return { documents: total("documents"), requestUnits: total("requestUnits") };
}
