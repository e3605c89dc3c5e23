// The writer: creates readings, 50 at a time, and sorts the answers into stored and refused
// (status and substatus as the service sends them: 403 with substatus 1014 when the logical
// partition is full).

export async function writeAll(container, readings, keyOf) {
  const outcomes = [];
  for (let start = 0; start < readings.length; start += 50) {
    outcomes.push(...await Promise.all(readings.slice(start, start + 50).map(async (reading) => {
      try {
        await container.items.create(reading);
        return { tenantId: reading.tenantId, stored: true };
      } catch (error) {
        return { tenantId: reading.tenantId, stored: false, status: error.code, substatus: Number(error.substatus ?? error.headers?.["x-ms-substatus"]) };
      }
    })));
  }
  return outcomes;
}
