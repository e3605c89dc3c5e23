// A hierarchical partition key: tenant, then device. The 20 GB cap applies to each full key (one
// device of one tenant), while a query for one tenant still goes only where that tenant lives.

export const partitionKey = { paths: ["/tenantId", "/deviceId"], kind: "MultiHash", version: 2 };

export function keyOf(reading) {
  return [reading.tenantId, reading.deviceId];
}
