// The labs' data: IoT telemetry of a multi-tenant dashboard (tenants, their devices, a reading per
// device every few hours), generated deterministically, and a bulk loader.

const HOUR_MS = 3600 * 1000;
export const DAY_MS = 24 * HOUR_MS;
export const START = Date.UTC(2026, 10, 1);  // 1 November 2026

// Readings of `tenants` tenants with `devicesPerTenant` devices each, `perDay` readings per device
// per day, over `days` days from START. Each carries the keys the labs compare: deviceId, tenantId
// and the synthetic tenantMonth ("t07:202611").
export function readings({ tenants, devicesPerTenant, days, perDay }) {
  const all = [];
  for (let day = 0; day < days; day++) {
    for (let slot = 0; slot < perDay; slot++) {
      for (let tenant = 0; tenant < tenants; tenant++) {
        for (let device = 0; device < devicesPerTenant; device++) {
          all.push(reading(tenant, device, day, slot, perDay));
        }
      }
    }
  }
  return all;
}

export function tenantId(tenant) {
  return `t${String(tenant).padStart(2, "0")}`;
}

function reading(tenant, device, day, slot, perDay) {
  // Devices report a few milliseconds apart, so no two readings of a tenant share a time.
  const ts = START + day * DAY_MS + slot * Math.floor(DAY_MS / perDay) + device * 10 + tenant;
  const month = new Date(ts).toISOString().slice(0, 7).replace("-", "");
  const deviceId = `${tenantId(tenant)}-d${device}`;
  return {
    id: `${deviceId}-${day}-${slot}`,
    tenantId: tenantId(tenant),
    deviceId,
    tenantMonth: `${tenantId(tenant)}:${month}`,
    ts,
    temperature: 15 + ((tenant * 7 + device * 3 + day + slot) % 20),
    humidity: 30 + ((tenant + device * 5 + slot) % 40),
    firmware: `fw-${device % 3}`,
  };
}

// Creates `items` in bulk (the SDK's executeBulkOperations: 1,000 operations to a call, four calls
// at a time), each under the partition key `keyOf(item)`; returns the RU spent. Throws if any
// operation failed.
export async function bulkLoad(container, items, keyOf, operationType = "Create") {
  const calls = [];
  for (let start = 0; start < items.length; start += 1000) calls.push(items.slice(start, start + 1000));
  let charge = 0;
  for (let next = 0; next < calls.length; next += 4) {
    const answers = await Promise.all(calls.slice(next, next + 4).map((chunk) =>
      container.items.executeBulkOperations(chunk.map((item) => ({
        operationType, partitionKey: keyOf(item), resourceBody: item,
      })))));
    for (const result of answers.flat()) {
      const status = result.response?.statusCode;
      if (status !== 201 && status !== 200) {
        throw new Error(`bulk ${operationType} failed: ${status ?? result.error?.message}`);
      }
      charge += result.response.requestCharge ?? 0;
    }
  }
  return charge;
}
