// The first telemetry container: every reading kept forever. Nobody looks at a reading older than
// a week, yet each one stays: storage is billed by the GB every month, a physical partition that
// passes 50 GB splits in two, and the least RU/s the container may be set to rises with its storage.

export function containerDefinition(id) {
  return { id, partitionKey: { paths: ["/deviceId"] } };  // no defaultTtl: nothing ever expires
}

export async function writeReading(container, reading) {
  const { requestCharge } = await container.items.create(reading);
  return requestCharge;
}

// The cleanup job a team writes when the storage bill arrives: find the old readings, delete them
// one by one. It works, but every delete is a write paid in RU, on top of the query that finds them,
// and it competes with the devices' writes for the container's RU/s.
export async function deleteOlderThan(container, cutoffSeconds) {
  const { resources, requestCharge: queryCharge } = await container.items.query({
    query: "SELECT c.id, c.deviceId FROM c WHERE c._ts < @cutoff",
    parameters: [{ name: "@cutoff", value: cutoffSeconds }],
  }).fetchAll();
  let requestCharge = queryCharge;
  for (const { id, deviceId } of resources) {
    requestCharge += (await container.item(id, deviceId).delete()).requestCharge;
  }
  return { deleted: resources.length, requestCharge };
}
