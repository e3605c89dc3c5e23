// Three days of the same fleet, as the RU/s each hour of the day needs. A workshop cannot wait a
// day, so the lab plays each hour as one second and asks the cost report to bill every second as
// an hour (?hourSeconds=1).

// Telemetry that spikes: devices wake and report at 08:00-10:00 and 18:00-20:00, and trickle in
// the rest of the day. Sized for the peak, provisioned throughput idles 20 hours a day.
export function spiky(hour) {
  return [8, 9, 18, 19].includes(hour) ? 1200 : 120;
}

// A steady feed (a pipeline replaying a queue at a constant rate): the peak is the average.
export function steady() {
  return 600;
}

// A development or test environment: one busy hour a day, idle otherwise.
export function occasional(hour) {
  return hour === 10 ? 150 : 0;
}

// Writes `requestUnits` worth of telemetry now, in one bulk call (a create of one reading costs
// `createCharge` RU); returns the RU the emulator charged.
export async function writeFor(container, requestUnits, createCharge, nextId) {
  const count = Math.round(requestUnits / createCharge);
  if (count === 0) return 0;
  const operations = [];
  for (let i = 0; i < count; i++) {
    const id = nextId();
    operations.push({ operationType: "Create", partitionKey: `d${id % 50}`,
      resourceBody: { id: String(id), deviceId: `d${id % 50}`, ts: Date.now(), temperature: 20 + (id % 7) } });
  }
  const results = await container.items.executeBulkOperations(operations);
  return results.reduce((sum, result) => sum + (result.response?.requestCharge ?? 0), 0);
}
