// The ingestion code: one create per reading, all of a second's readings at once. The client is
// made with { retry: false }, so a 429 reaches this code instead of being retried silently by the
// SDK (which is what production code wants, and why 429s go unnoticed).

export async function ingestSecond(container, readings, keyOf) {
  const outcomes = await Promise.all(readings.map(async (reading) => {
    try {
      const { requestCharge } = await container.items.create(reading);
      return { stored: true, requestCharge };
    } catch (error) {
      if (error.code !== 429) throw error;
      // The service says how long to wait before this partition accepts work again.
      const retryAfterMs = Number(error.headers?.["x-ms-retry-after-ms"] ?? error.retryAfterInMs);
      return { stored: false, throttled: true, retryAfterMs, substatus: error.substatus ?? error.headers?.["x-ms-substatus"] };
    }
  }));
  return outcomes;
}
