// The better design: a synthetic key, the tenant and the month ("t07:202611"). A tenant's
// question goes to one logical partition; a month bounds how large a partition grows, and many
// tenants still spread the writes.

export const partitionKey = { paths: ["/tenantMonth"] };

export function keyOf(reading) {
  return reading.tenantMonth;
}

function monthOf(ts) {
  return new Date(ts).toISOString().slice(0, 7).replace("-", "");
}

// The same question, with the partition key: one physical partition answers it.
export async function tenantLastDay(container, tenantId, since) {
  const { resources, requestCharge } = await container.items.query({
    query: "SELECT * FROM c WHERE c.tenantMonth = @key AND c.ts >= @since ORDER BY c.ts DESC",
    parameters: [{ name: "@key", value: `${tenantId}:${monthOf(since)}` }, { name: "@since", value: since }],
  }, { partitionKey: `${tenantId}:${monthOf(since)}` }).fetchAll();
  return { readings: resources, requestCharge };
}

// Opening one reading when the link carries its id and its key: a point read.
export async function readingById(container, id, key) {
  const { resource, requestCharge } = await container.item(id, key).read();
  return { reading: resource, requestCharge };
}
