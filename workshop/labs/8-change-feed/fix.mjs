// The fix: keep the at-least-once consumer (mistake.mjs's consume: checkpoint after handling), and
// make the handler idempotent, so that a change handled twice leaves the same state as once.
import { HOT_CELSIUS } from "./mistake.mjs";

export { consume, HOT_CELSIUS } from "./mistake.mjs";

export function handler({ stats, alerts }) {
  return async (reading) => {
    // Count a reading once: the tile remembers the _lsn of the last change it counted, and the patch
    // applies only to a newer one (412 Precondition Failed otherwise: already counted). This holds
    // because one device's changes come in order (its logical partition's LSN order) and this
    // handler awaits each one before the next.
    try {
      await stats.item(reading.deviceId, reading.deviceId).patch({
        condition: `FROM c WHERE c.lastLsn < ${reading._lsn}`,
        operations: [
          { op: "incr", path: "/readings", value: 1 },
          { op: "set", path: "/lastLsn", value: reading._lsn },
        ],
      });
    } catch (error) {
      if (error.code !== 412) throw error;
    }
    // One alert per hot reading, named after it: a second upsert rewrites the same document.
    if (reading.temperature > HOT_CELSIUS) {
      await alerts.items.upsert({
        id: `hot:${reading.id}`, deviceId: reading.deviceId, readingId: reading.id, temperature: reading.temperature, ts: reading.ts,
      });
    }
  };
}
