// Lab 4: what consistency costs. The emulator's account defaults to Strong (--consistency Strong);
// the same point read and the same query run at every level a request may ask for.
import { CosmosClient } from "@azure/cosmos";
import * as mistake from "./mistake.mjs";
import * as fix from "./fix.mjs";
import { EMULATOR_KEY } from "../../lib/emulator.mjs";
import { bulkLoad, readings } from "../../lib/telemetry.mjs";
import { ru, times } from "../../lib/report.mjs";

const LEVELS = ["Strong", "BoundedStaleness", "Session", "ConsistentPrefix", "Eventual"];

async function readAndQuery(client, deviceId, id) {
  const container = client.database("iot").container("readings");
  const point = await container.item(id, deviceId).read();
  const query = await container.items.query({
    query: "SELECT * FROM c WHERE c.deviceId = @device ORDER BY c.ts DESC",
    parameters: [{ name: "@device", value: deviceId }],
  }, { partitionKey: deviceId }).fetchAll();
  return { point: point.requestCharge, query: query.requestCharge, rows: query.resources.length };
}

export default {
  title: "consistency costs: reads at Strong and Bounded Staleness cost twice Session and Eventual",
  flags: ["--consistency", "Strong"],
  async run({ emulator, report, quick }) {
    const data = readings({ tenants: 4, devicesPerTenant: 5, days: quick ? 5 : 30, perDay: 4 });
    const setup = emulator.client();
    const { database } = await setup.databases.createIfNotExists({ id: "iot" });
    const { container } = await database.containers.create({ id: "readings", partitionKey: { paths: ["/deviceId"] } });
    await bulkLoad(container, data, (r) => r.deviceId);
    const sample = data[data.length - 1];

    const charges = {};
    for (const level of LEVELS) {
      const client = new CosmosClient({ endpoint: emulator.endpoint, key: EMULATOR_KEY, consistencyLevel: level });
      charges[level] = await readAndQuery(client, sample.deviceId, sample.id);
    }
    const asMistake = await readAndQuery(mistake.dashboardClient(emulator.endpoint, EMULATOR_KEY), sample.deviceId, sample.id);
    const asFix = await readAndQuery(fix.dashboardClient(emulator.endpoint, EMULATOR_KEY), sample.deviceId, sample.id);

    report.note(`The account's default is Strong. A point read of one ~300-byte reading, and a query for one device's ` +
      `${charges.Session.rows} readings, at each level a client may ask for.`);
    report.table(["consistency", "point read RU", "query RU"],
      LEVELS.map((level) => [level, ru(charges[level].point), ru(charges[level].query)]));
    report.table(["dashboard client", "point read RU", "query RU", "a million reads a day, RU"], [
      ["mistake.mjs (account default)", ru(asMistake.point), ru(asMistake.query), Math.round(asMistake.point * 1e6)],
      ["fix.mjs (Session)", ru(asFix.point), ru(asFix.query), Math.round(asFix.point * 1e6)],
    ]);
    report.note(`Strong costs ${times(charges.Strong.point / charges.Session.point)} Session for a point read and ` +
      `${times(charges.Strong.query / charges.Session.query)} for the query.`);

    report.within("a Session point read costs 1 RU", charges.Session.point, { min: 1, max: 1.01 });
    for (const level of ["Strong", "BoundedStaleness"]) {
      report.within(`${level}: a point read costs twice Session`, charges[level].point / charges.Session.point, { min: 1.99, max: 2.01 });
      report.within(`${level}: the query costs twice Session`, charges[level].query / charges.Session.query, { min: 1.99, max: 2.01 });
    }
    for (const level of ["ConsistentPrefix", "Eventual"]) {
      report.check(`${level}: costs what Session does`,
        charges[level].point === charges.Session.point && charges[level].query === charges.Session.query);
    }
    report.check("the mistake's client reads at Strong", asMistake.point === charges.Strong.point && asMistake.query === charges.Strong.query);
    report.check("the fix's client reads at Session", asFix.point === charges.Session.point && asFix.query === charges.Session.query);
    report.check("every level returns the same readings", LEVELS.every((level) => charges[level].rows === charges.Session.rows));

    report.lesson("Strong and Bounded Staleness reads are served by two replicas and cost twice as many RU as Session, " +
      "Consistent Prefix or Eventual, for the same answer on a single-region account. Choose the account's level for " +
      "the strictest reader, and relax it per client or per request (consistencyLevel) where a session is enough.");
    report.exercise("Ask for Strong in fix.mjs while the emulator's account default is Session (change the lab's flags " +
      "to --consistency Session): predict what the service answers, then run the lab again.");
  },
};
