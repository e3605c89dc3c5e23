// The fix: the container forgets old readings by itself. defaultTtl (in seconds) starts each
// item's clock at its last write (_ts); from _ts + defaultTtl it is invisible to reads, queries and
// the change feed, and the service deletes it in the background with RU/s the requests left
// unused: no request pays for it, no job to write, storage stops at the window you keep.

// The lab compresses time: a second stands for a day. In production DAY_SECONDS is 86,400.
export const DAY_SECONDS = 1;

export function containerDefinition(id, keepDays) {
  return { id, partitionKey: { paths: ["/deviceId"] }, defaultTtl: keepDays * DAY_SECONDS };
}

// The same write as before: the readings need no ttl of their own. (An item's own `ttl` overrides
// the container's, e.g. ttl: -1 keeps a daily summary forever.)
export async function writeReading(container, reading) {
  const { requestCharge } = await container.items.create(reading);
  return requestCharge;
}
