// Lab 5: the indexing policy. The same readings (about 20 properties each) written into a
// container with the default "index everything" policy (mistake.mjs) and one that indexes only
// the paths the dashboard queries (fix.mjs): write RU, index size (GET /_cosmolite/partitions and
// the collectionSize of a container read with quota info), the dashboard's query, and the query
// that becomes expensive because its path is no longer indexed.
import * as mistake from "./mistake.mjs";
import * as fix from "./fix.mjs";
import { bulkLoad, readings } from "../../lib/telemetry.mjs";
import { percent, ru } from "../../lib/report.mjs";

// A reading as a device sends it: about 20 properties.
function fullReading(reading, i) {
  return {
    ...reading,
    battery: 100 - (i % 60), rssi: -40 - (i % 50), status: i % 17 === 0 ? "warning" : "ok",
    model: `m${i % 5}`, site: { building: `b${i % 3}`, floor: i % 7, room: `r${i % 40}` },
    location: { lat: 52 + (i % 100) / 1000, lon: 4 + (i % 100) / 1000 },
    pressure: 1000 + (i % 30), co2: 400 + (i % 200), vibration: (i % 13) / 10, uptimeSeconds: i * 60,
    tags: ["telemetry", `zone-${i % 4}`],
  };
}

function usageOf(headers) {
  return Object.fromEntries(headers["x-ms-resource-usage"].split(";").filter(Boolean).map((kv) => kv.split("=")).map(([k, v]) => [k, Number(v)]));
}

export default {
  title: "the indexing policy: index what you query, and writes and storage shrink",
  flags: [],
  async run({ emulator, report, quick }) {
    const data = readings({ tenants: 10, devicesPerTenant: 5, days: quick ? 4 : 20, perDay: 10 }).map(fullReading);
    const { database } = await emulator.client().databases.createIfNotExists({ id: "iot" });
    const results = {};
    const device = data[0].deviceId;
    for (const [name, design] of [["index everything", mistake], ["device and time", fix]]) {
      const id = design === mistake ? "everything" : "narrowed";
      const { container } = await database.containers.create({
        id, partitionKey: { paths: ["/deviceId"] }, indexingPolicy: design.indexingPolicy,
      });
      const writeCharge = await bulkLoad(container, data, (r) => r.deviceId);
      const { containers } = await emulator.admin("/_cosmolite/partitions");
      const seen = containers.find((c) => c.container === `dbs/iot/colls/${id}`);
      const usage = usageOf((await container.read({ populateQuotaInfo: true })).headers);
      const dashboard = await container.items.query({
        query: "SELECT * FROM c WHERE c.deviceId = @d AND c.ts >= @since ORDER BY c.ts DESC",
        parameters: [{ name: "@d", value: device }, { name: "@since", value: data[0].ts }],
      }, { partitionKey: device }).fetchAll();
      const warnings = await container.items.query("SELECT VALUE COUNT(1) FROM c WHERE c.status = 'warning'").fetchAll();
      const seenWarnings = await emulator.lastQuery("SELECT VALUE COUNT(1) FROM c WHERE c.status = 'warning'");
      let sortByBattery;
      try {
        const sorted = await container.items.query("SELECT TOP 5 c.id FROM c ORDER BY c.battery").fetchAll();
        sortByBattery = { ok: true, rows: sorted.resources.length, charge: sorted.requestCharge };
      } catch (error) {
        sortByBattery = { ok: false, status: error.code, message: String(error.message ?? "").split("\n")[0] };
      }
      results[name] = { writeCharge, perWrite: writeCharge / data.length, indexBytes: seen.indexBytes, indexEntries: seen.indexEntries,
        documentBytes: seen.physicalPartitions.reduce((s, p) => s + p.bytes, 0), usage, dashboard, warnings,
        scanned: seenWarnings.documentsScanned, sortByBattery };
    }
    const all = results["index everything"], narrow = results["device and time"];
    report.note(`${data.length.toLocaleString("en-US")} readings of ~${Math.round(all.documentBytes / data.length)} bytes, ` +
      `about 20 properties each, bulk loaded into each container.`);
    report.table(["indexing policy", "RU per write", "index entries", "index KB", "documents KB", "collectionSize KB"],
      Object.entries(results).map(([name, r]) => [name, ru(r.perWrite), r.indexEntries, Math.round(r.indexBytes / 1024),
        Math.round(r.documentBytes / 1024), r.usage.collectionSize]));
    const writeChange = narrow.perWrite / all.perWrite - 1;
    const indexChange = narrow.indexBytes / all.indexBytes - 1;
    report.note(`Narrowing the policy: write RU ${percent(writeChange)}, index size ${percent(indexChange)}.`);
    report.table(["indexing policy", "dashboard query RU", "COUNT of warnings RU", "documents it loaded", "ORDER BY c.battery"],
      Object.entries(results).map(([name, r]) => [name, ru(r.dashboard.requestCharge), ru(r.warnings.requestCharge), r.scanned,
        r.sortByBattery.ok ? `${ru(r.sortByBattery.charge)} RU` : `${r.sortByBattery.status}: ${r.sortByBattery.message.slice(0, 60)}`]));

    report.within("narrowing cuts the write RU by a sixth or more", writeChange, { min: -0.5, max: -0.15 });
    report.within("narrowing cuts the index by two thirds or more", indexChange, { min: -0.95, max: -0.66 });
    report.check("collectionSize counts documents and index", all.usage.collectionSize > all.usage.documentsSize &&
      Math.abs(all.usage.collectionSize - all.usage.documentsSize - all.indexBytes / 1024) <= 2,
      `${all.usage.collectionSize} KB against ${all.usage.documentsSize} + ${Math.round(all.indexBytes / 1024)}`);
    report.check("both answer the dashboard with the same readings",
      JSON.stringify(all.dashboard.resources.map((r) => r.id)) === JSON.stringify(narrow.dashboard.resources.map((r) => r.id)));
    report.within("the dashboard query costs about the same", narrow.dashboard.requestCharge / all.dashboard.requestCharge, { min: 0.9, max: 1.1 });
    report.check("both count the same warnings", all.warnings.resources[0] === narrow.warnings.resources[0]);
    report.check("indexed, the count loads no document", all.scanned === 0, `${all.scanned}`);
    report.check("not indexed, the count loads every reading", narrow.scanned === data.length, `${narrow.scanned}`);
    report.within("not indexed, the count costs many times more", narrow.warnings.requestCharge / all.warnings.requestCharge, { min: 5 });
    report.check("indexed, ORDER BY c.battery works", all.sortByBattery.ok);
    report.check("not indexed, ORDER BY c.battery is refused with 400", !narrow.sortByBattery.ok && narrow.sortByBattery.status === 400,
      JSON.stringify(narrow.sortByBattery));

    report.lesson("Every indexed path costs RU on every write and bytes in the index, so the default policy makes a " +
      "write-heavy container pay for paths no query uses. Index the paths your queries filter and sort on: a filter on " +
      "an excluded path scans every document, and an ORDER BY on one is refused.");
    report.exercise("Add /status/? to fix.mjs's included paths: predict the write RU and index size, and the cost of " +
      "the warnings count, then run the lab again.");
  },
};
