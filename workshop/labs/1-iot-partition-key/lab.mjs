// Lab 1: the partition key of a multi-tenant IoT dashboard. The same readings in a container
// keyed by device (mistake.mjs) and one keyed by tenant and month (fix.mjs), at 4 and at 40
// physical partitions (40,000 and 400,000 RU/s): what the dashboard's question costs, how many
// physical partitions it reaches (the emulator's admin API), and a point read against a query.
import * as mistake from "./mistake.mjs";
import * as fix from "./fix.mjs";
import { bulkLoad, readings, DAY_MS, START, tenantId } from "../../lib/telemetry.mjs";
import { ru, times } from "../../lib/report.mjs";

const DAYS = 10;

export default {
  title: "the partition key of a multi-tenant IoT dashboard",
  flags: [],
  async run({ emulator, report, quick }) {
    const shape = { tenants: 20, devicesPerTenant: 5, days: DAYS, perDay: quick ? 2 : 8 };
    const data = readings(shape);
    const tenant = tenantId(7);
    const since = START + (DAYS - 1) * DAY_MS;
    const expectedRows = shape.devicesPerTenant * shape.perDay;
    report.note(`${data.length.toLocaleString("en-US")} readings: ${shape.tenants} tenants × ${shape.devicesPerTenant} devices × ` +
      `${DAYS} days × ${shape.perDay} a day. The question: tenant ${tenant}'s last day, newest first.`);

    const { database } = await emulator.client().databases.createIfNotExists({ id: "iot" });
    const rows = [];
    const ratios = [];
    const pointReads = [];
    const keyedCharges = [];
    for (const throughput of [40_000, 400_000]) {
      const byDevice = await loaded(database, `byDevice${throughput}`, mistake, throughput, data);
      const byTenantMonth = await loaded(database, `byTenantMonth${throughput}`, fix, throughput, data);
      const partitions = (await byDevice.readPartitionKeyRanges().fetchAll()).resources.length;

      const fannedOut = await mistake.tenantLastDay(byDevice, tenant, since);
      const fannedOutSeen = await emulator.lastQuery(mistakeQueryText);
      const keyed = await fix.tenantLastDay(byTenantMonth, tenant, since);
      const keyedSeen = await emulator.lastQuery(fixQueryText);
      rows.push([partitions, "/deviceId", ru(fannedOut.requestCharge), fannedOutSeen.physicalPartitions, fannedOut.readings.length]);
      rows.push([partitions, "/tenantMonth", ru(keyed.requestCharge), keyedSeen.physicalPartitions, keyed.readings.length]);
      ratios.push(fannedOut.requestCharge / keyed.requestCharge);

      report.check(`${partitions} partitions: both designs return the tenant's last day, in the same order`,
        fannedOut.readings.length === expectedRows &&
        JSON.stringify(fannedOut.readings.map((r) => r.id)) === JSON.stringify(keyed.readings.map((r) => r.id)),
        `${fannedOut.readings.length} and ${keyed.readings.length} rows, expected ${expectedRows}`);
      report.check(`${partitions} partitions: keyed by device, the question reaches every physical partition`,
        fannedOutSeen.physicalPartitions === partitions, `${fannedOutSeen.physicalPartitions} of ${partitions}`);
      report.check(`${partitions} partitions: keyed by tenant and month, it reaches one`, keyedSeen.physicalPartitions === 1,
        `${keyedSeen.physicalPartitions}`);
      report.within(`${partitions} partitions: the keyed question costs a few RU`, keyed.requestCharge, { min: 2.3, max: quick ? 5 : 8 });
      keyedCharges.push(keyed.requestCharge);

      const sample = data[data.length - 1];
      const point = await fix.readingById(byTenantMonth, sample.id, sample.tenantMonth);
      const byId = await mistake.readingById(byDevice, sample.id);
      report.check("the point read and the query find the same reading", point.reading.id === byId.reading.id);
      pointReads.push([partitions, ru(point.requestCharge), ru(byId.requestCharge), times(byId.requestCharge / point.requestCharge)]);
      report.within(`${partitions} partitions: a point read of a 1 KB reading costs 1 RU`, point.requestCharge, { min: 1, max: 1.01 });
      report.within(`${partitions} partitions: the query by id costs about 2.5 RU per partition`,
        byId.requestCharge / partitions, { min: 2.2, max: 3.5 });
    }

    report.table(["physical partitions", "partition key", "RU", "partitions reached", "readings"], rows);
    report.note(`The fan-out costs ${times(ratios[0])} the keyed question at 4 partitions and ${times(ratios[1])} at 40.`);
    report.table(["physical partitions", "point read RU", "query by id RU", "ratio"], pointReads);
    report.within("at 40 partitions the fan-out costs many times the keyed question", ratios[1], { min: 8 });
    report.check("the keyed question costs the same at 4 and at 40 partitions",
      Math.abs(keyedCharges[1] - keyedCharges[0]) < 0.05 * keyedCharges[0], keyedCharges.map(ru).join(" and "));
    report.check("the gap grows with the partitions", ratios[1] > 2 * ratios[0], `${times(ratios[0])} then ${times(ratios[1])}`);

    report.lesson("A query pays about 2.5 RU in every physical partition it asks, so a key that does not match the " +
      "question costs more as the container grows, even when the answer is the same few rows. Key by what the hot " +
      "questions filter on (a synthetic tenant-and-month key here), and read by id and key whenever you can: 1 RU.");
    report.exercise("In fix.mjs, drop the { partitionKey } option of tenantLastDay: predict how many partitions the " +
      "query reaches now (the SDK still sees the key in the filter), then run the lab again. Then ask for the tenant's " +
      "whole month: which design wins, by how much?");
  },
};

const mistakeQueryText = "SELECT * FROM c WHERE c.tenantId = @tenant AND c.ts >= @since ORDER BY c.ts DESC";
const fixQueryText = "SELECT * FROM c WHERE c.tenantMonth = @key AND c.ts >= @since ORDER BY c.ts DESC";

async function loaded(database, id, design, throughput, data) {
  const { container } = await database.containers.create({ id, partitionKey: design.partitionKey, throughput });
  await bulkLoad(container, data, design.keyOf);
  return container;
}
