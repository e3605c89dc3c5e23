// The cost report (GET /_cosmolite/cost-report) as a table: what each container's workload would
// cost per month under provisioned, autoscale and serverless throughput, at the list prices the
// emulator states (docs/cost-report.md).

// One row per container: its observed rates, and the monthly USD of each way to pay.
export function costTable(report, label = (entry) => entry.container ?? entry.database) {
  const columns = ["container", "avg RU/s", "peak RU/s", "provisioned RU/s", "provisioned $/month",
    "autoscale max RU/s", "autoscale $/month", "serverless $/month", "cheapest"];
  const rows = report.containers.filter((entry) => entry.observed.requestUnits > 0).map((entry) => [
    label(entry), entry.observed.averageRuPerSecond, entry.observed.peakRuPerSecond,
    entry.provisioned.ruPerSecond, usd(entry.provisioned.monthlyUsd),
    entry.autoscale.maxRuPerSecond, usd(entry.autoscale.monthlyUsd),
    usd(entry.serverless.monthlyUsd), entry.cheapest,
  ]);
  return { columns, rows };
}

export function pricesLine(report) {
  const p = report.listPrices;
  return `List prices (${p.currency}, as of ${p.asOf}): provisioned $${p.provisionedPer100RuPerSecondPerHour} and ` +
    `autoscale $${p.autoscalePer100RuPerSecondPerHour} per 100 RU/s per hour, serverless $${p.serverlessPerMillionRu} ` +
    `per million RU, storage $${p.storagePerGbMonth} per GB-month; ${report.hoursPerMonth} hours a month.`;
}

function usd(value) {
  return `$${value.toFixed(2)}`;
}
