// Keyed by tenant: every reading of a tenant is one logical partition, and a logical partition
// holds at most 20 GB. A big tenant fills it, and then none of its writes succeed.

export const partitionKey = { paths: ["/tenantId"] };

export function keyOf(reading) {
  return reading.tenantId;
}
