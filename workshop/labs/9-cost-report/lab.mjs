// Lab 9: provisioned, autoscale or serverless? Three workloads write telemetry for a compressed
// day (each second stands for an hour); the emulator's cost report (GET /_cosmolite/cost-report,
// or node cost-report.mjs) prices the RU each physical partition consumed in each second under
// the three ways the service bills throughput.
import { spiky, steady, occasional, writeFor } from "./workloads.mjs";
import { costTable, pricesLine } from "../../lib/cost.mjs";
import { percent } from "../../lib/report.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export default {
  title: "provisioned, autoscale or serverless: the cost report of three workloads",
  flags: [],
  async run({ emulator, report, quick }) {
    const { database } = await emulator.client().databases.createIfNotExists({ id: "fleet" });
    const shapes = { spiky, steady, occasional };
    const containers = {};
    for (const name of Object.keys(shapes)) {
      ({ container: containers[name] } = await database.containers.create({ id: name, partitionKey: { paths: ["/deviceId"] } }));
    }
    // What one reading's create costs, to turn each hour's RU/s into readings.
    let nextId = 0;
    const probe = await containers.spiky.items.create({ id: "probe", deviceId: "d0", ts: Date.now(), temperature: 20 });
    const createCharge = probe.requestCharge;
    await containers.spiky.item("probe", "d0").delete();

    // The day: hour h is played in the wall-clock second `first + h`, all three workloads at once.
    const hours = quick ? [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19] : [...Array(24).keys()];
    await sleep(1000 - (Date.now() % 1000) + 20);
    const first = Math.floor(Date.now() / 1000);
    for (const [index, hour] of hours.entries()) {
      const start = (first + index) * 1000 + 20;
      if (Date.now() < start) await sleep(start - Date.now());
      await Promise.all(Object.entries(shapes).map(([name, shape]) =>
        writeFor(containers[name], shape(hour), createCharge, () => nextId++)));
    }
    const last = first + hours.length - 1;
    await sleep(1000 - (Date.now() % 1000) + 20);  // the last second's requests are all in

    const costs = await emulator.admin(`/_cosmolite/cost-report?hourSeconds=1&from=${first}&to=${last}`);
    report.note(`A day of ${hours.length} hours (hours ${hours[0]}-${hours[hours.length - 1]}), each played as one second; ` +
      `one reading's create costs ${createCharge} RU.`);
    report.note(pricesLine(costs));
    const { columns, rows } = costTable(costs, (entry) => entry.container.split("/").pop());
    report.table(columns, rows);

    const of = Object.fromEntries(costs.containers.map((entry) => [entry.container.split("/").pop(), entry]));
    const savings = Object.fromEntries(Object.entries(of).map(([name, entry]) => [name, entry.autoscaleVersusProvisioned]));
    report.note(`Autoscale against provisioned: spiky ${percent(savings.spiky)}, steady ${percent(savings.steady)}, ` +
      `occasional ${percent(savings.occasional)}.`);

    report.within("spiky: the peak second is about 1,200 RU/s", of.spiky.observed.peakRuPerSecond, { min: 900, max: 1500 });
    report.within("spiky: the average is far below the peak", of.spiky.observed.averageRuPerSecond / of.spiky.observed.peakRuPerSecond,
      { max: quick ? 0.5 : 0.4 });
    report.within("steady: the average is about 600 RU/s", of.steady.observed.averageRuPerSecond, { min: 480, max: 720 });
    report.check("spiky: autoscale is the cheapest", of.spiky.cheapest === "autoscale", of.spiky.cheapest);
    report.within("spiky: autoscale saves over a third of provisioned", savings.spiky, { max: -0.33 });
    report.check("steady: provisioned is the cheapest", of.steady.cheapest === "provisioned", of.steady.cheapest);
    report.within("steady: autoscale costs a fifth more or worse", savings.steady, { min: 0.2, max: 0.6 });
    report.check("occasional: serverless is the cheapest", of.occasional.cheapest === "serverless", of.occasional.cheapest);
    report.check("provisioned: never under 400 RU/s", Object.values(of).every((entry) => entry.provisioned.ruPerSecond >= 400));
    report.check("spiky: provisioned covers the peak second",
      of.spiky.provisioned.ruPerSecond >= of.spiky.observed.peakRuPerSecond, `${of.spiky.provisioned.ruPerSecond} RU/s`);

    report.lesson("Provisioned throughput is billed every hour at the peak you size for, autoscale at what each hour " +
      "reached but at 1.5× the rate (never below a tenth of its maximum), serverless per RU consumed. A spiky load " +
      "that peaks a few hours a day is cheaper on autoscale, a steady one on provisioned, an occasional one on serverless.");
    report.exercise("In workloads.mjs, make the spiky load peak for 12 hours instead of 4: predict which way to pay " +
      "wins now (the break-even is at the maximum about two hours in three), then run the lab again. Then give the " +
      "containers 40,000 RU/s (four physical partitions): why does the provisioned need grow?");
  },
};
