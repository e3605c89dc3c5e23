// Keyed by tenant: one big tenant sends most of the telemetry, so most writes land in one
// logical partition, and so in one physical partition, whatever the container's total RU/s.

export const partitionKey = { paths: ["/tenantId"] };

export function keyOf(reading) {
  return reading.tenantId;
}
