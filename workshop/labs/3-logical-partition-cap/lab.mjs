// Lab 3: the 20 GB logical partition cap, scaled down: the emulator runs with
// --logical-partition-cap 262144 (256 KB stands for 20 GB). A big tenant writes 1 KB readings
// until its logical partition is full, while small tenants go on.
import * as mistake from "./mistake.mjs";
import * as fix from "./fix.mjs";
import { writeAll } from "./write.mjs";

const CAP_BYTES = 256 * 1024;
const PADDING = "x".repeat(900);  // a reading of about 1 KB

function readings(bigCount) {
  const all = [];
  for (let i = 0; i < bigCount; i++) {
    all.push({ id: `big-${i}`, tenantId: "big", deviceId: `big-d${i % 20}`, ts: i, payload: PADDING });
  }
  for (let tenant = 0; tenant < 10; tenant++) {
    for (let i = 0; i < 20; i++) {
      all.push({ id: `small${tenant}-${i}`, tenantId: `small${tenant}`, deviceId: `small${tenant}-d${i % 4}`, ts: i, payload: PADDING });
    }
  }
  return all;
}

export default {
  title: "the logical partition cap: one tenant's writes fail with 403/1014 while others succeed",
  flags: ["--logical-partition-cap", String(CAP_BYTES)],
  async run({ emulator, report, quick }) {
    const bigCount = quick ? 400 : 1200;
    const data = readings(bigCount);
    const { database } = await emulator.client().databases.createIfNotExists({ id: "tenants" });
    const rows = [];
    const results = {};
    for (const [name, design] of [["/tenantId", mistake], ["/tenantId, /deviceId", fix]]) {
      const id = design === mistake ? "by-tenant" : "by-tenant-and-device";
      const { container } = await database.containers.create({ id, partitionKey: design.partitionKey });
      const outcomes = await writeAll(container, data, design.keyOf);
      const big = outcomes.filter((o) => o.tenantId === "big");
      const small = outcomes.filter((o) => o.tenantId !== "big");
      const refused = big.filter((o) => !o.stored);
      const { containers } = await emulator.admin("/_cosmolite/partitions");
      const seen = containers.find((c) => c.container === `dbs/tenants/colls/${id}`);
      const largest = Math.max(...seen.physicalPartitions.flatMap((p) => p.largestLogicalPartitions.map((l) => l.bytes)));
      const statuses = [...new Set(refused.map((o) => `${o.status}/${o.substatus}`))];
      results[name] = { big, small, refused, largest, statuses };
      rows.push([name, big.filter((o) => o.stored).length, refused.length, statuses.join(", ") || "-",
        small.filter((o) => o.stored).length, `${Math.round(largest / 1024)} KB`]);
    }
    report.note(`The cap: ${CAP_BYTES / 1024} KB per logical partition (standing for 20 GB). The big tenant writes ` +
      `${bigCount} readings of ~1 KB over 20 devices; 10 small tenants write 20 each.`);
    report.table(["partition key", "big tenant stored", "big tenant refused", "refused with", "small tenants stored",
      "largest logical partition"], rows);

    const byTenant = results["/tenantId"], hierarchical = results["/tenantId, /deviceId"];
    report.within("keyed by tenant: the big tenant stores about the cap's worth", byTenant.big.length - byTenant.refused.length,
      { min: 200, max: 260 });
    report.check("keyed by tenant: the rest are refused with 403/1014", byTenant.statuses.length === 1 && byTenant.statuses[0] === "403/1014",
      byTenant.statuses.join(", "));
    report.check("keyed by tenant: the small tenants still write", byTenant.small.every((o) => o.stored));
    report.within("keyed by tenant: the largest logical partition sits at the cap", byTenant.largest / CAP_BYTES, { min: 0.9, max: 1 });
    report.check("hierarchical key: every write succeeds", hierarchical.refused.length === 0 && hierarchical.small.every((o) => o.stored));
    // A device's share: the big tenant's readings over its 20 devices, at the size each reading took when keyed by tenant.
    const bytesPerReading = byTenant.largest / (byTenant.big.length - byTenant.refused.length);
    report.within("hierarchical key: the largest logical partition holds one device's twentieth of the tenant",
      hierarchical.largest / (bigCount / 20 * bytesPerReading), { min: 0.9, max: 1.1 });

    report.lesson("A logical partition (all documents of one partition key value) holds at most 20 GB; once full, " +
      "every write to it fails with 403 substatus 1014 while other keys carry on, and only a new key design fixes it. " +
      "A hierarchical key (tenant, then device) lifts the cap to each device while tenant queries stay targeted.");
    report.exercise("Double the big tenant's readings with the hierarchical key: predict when the first device's " +
      "partition fills (how many readings per device fit in 256 KB?), then run it. What would a per-device limit mean " +
      "for a device that reports every second for years?");
  },
};
