// The fix: make the redelivery harmless, and make the retries polite.

// The id comes from the message itself (the device and its own sequence number), so a
// redelivery names the same document. (Not the MQTT packet id: the broker reuses those.)
export function messageId(message) {
  return `${message.deviceId}:${message.seq}`;
}

// Create: a redelivery gets 409 Conflict, which means "already stored": acknowledge it and move on.
// The 409 still costs an RU or so, less than a write.
export async function store(container, message) {
  try {
    const { requestCharge } = await container.items.create({ id: messageId(message), ...message });
    return { requestCharge, duplicate: false };
  } catch (error) {
    if (error.code !== 409) throw error;
    return { requestCharge: Number(error.headers?.["x-ms-request-charge"] ?? 0), duplicate: true };
  }
}

// Or upsert: no error to handle, and the last delivery wins, but a redelivery is a full replace
// (about twice a create's RU). Choose it when a message may legitimately update the document.
export async function storeByUpsert(container, message) {
  const { requestCharge, statusCode } = await container.items.upsert({ id: messageId(message), ...message });
  return { requestCharge, duplicate: statusCode === 200 };  // 200 replaced, 201 created
}

// Throttled (429)? Wait at least what the service asks (x-ms-retry-after-ms), plus a random part
// that doubles with each attempt up to a ceiling (exponential backoff, "full jitter"): the herd
// spreads out, and the partition's refill goes to requests that can succeed instead of refusals.
// (The SDK's own retry policy honours the header too; this is the loop to write when you own the
// retries, as an ingestion service that acknowledges MQTT messages does.)
export async function retryWithBackoff(write, { baseMs = 100, capMs = 1000 } = {}) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (error.code !== 429) throw error;
      const ceiling = Math.min(capMs, baseMs * 2 ** attempt);
      await sleep((error.retryAfterInMs ?? 0) + Math.random() * ceiling);
    }
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
