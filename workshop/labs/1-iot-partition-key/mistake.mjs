// The first design of the dashboard's telemetry container: one logical partition per device.
// Writes spread well, but the dashboard asks about a tenant, and a tenant's devices live in
// every physical partition.

export const partitionKey = { paths: ["/deviceId"] };

export function keyOf(reading) {
  return reading.deviceId;
}

// The dashboard: one tenant's last day, newest first. Without the partition key the SDK asks
// every physical partition.
export async function tenantLastDay(container, tenantId, since) {
  const { resources, requestCharge } = await container.items.query({
    query: "SELECT * FROM c WHERE c.tenantId = @tenant AND c.ts >= @since ORDER BY c.ts DESC",
    parameters: [{ name: "@tenant", value: tenantId }, { name: "@since", value: since }],
  }).fetchAll();
  return { readings: resources, requestCharge };
}

// Opening one reading from a link that carries only its id: a query, asked of every partition.
export async function readingById(container, id) {
  const { resources, requestCharge } = await container.items.query({
    query: "SELECT * FROM c WHERE c.id = @id",
    parameters: [{ name: "@id", value: id }],
  }).fetchAll();
  return { reading: resources[0], requestCharge };
}
