// The first change-feed consumer of the readings container: it keeps each device's dashboard tile
// (a count of its readings) and raises an alert when a reading is too hot. The consumer loop is
// right, and the fix keeps it: it checkpoints after handling each page, so after a crash it resumes
// from the last checkpoint and sees again what it handled since. That is at-least-once delivery.
// The handler is what is wrong: it assumes each change arrives exactly once.
import { randomUUID } from "node:crypto";
import { ChangeFeedStartFrom } from "@azure/cosmos";

// The anomaly rule: a reading above 32 °C raises an alert.
export const HOT_CELSIUS = 32;

// Reads the feed from this consumer's checkpoint (the beginning on its first run) until it has
// caught up (304), handing every change to `handle`; after each page it saves the page's
// continuation token in the leases container. `beforeCheckpoint` is the lab's hook to crash there.
export async function consume({ readings, leases, name, handle, pageSize, beforeCheckpoint = () => {} }) {
  const { resource: lease } = await leases.item(name, name).read();  // undefined on the first run
  const iterator = readings.items.getChangeFeedIterator({
    changeFeedStartFrom: lease ? ChangeFeedStartFrom.Continuation(lease.continuation) : ChangeFeedStartFrom.Beginning(),
    maxItemCount: pageSize,
  });
  let changes = 0;
  let feedCharge = 0;
  for (;;) {
    const page = await iterator.readNext();
    // The header, not page.requestCharge: the JavaScript SDK (4.9) rounds a feed page's charge down
    // to a whole RU there (parseInt).
    feedCharge += Number(page.headers["x-ms-request-charge"]);
    if (page.statusCode === 304) break;  // nothing new: a service would sleep and poll again
    for (const reading of page.result) await handle(reading);
    changes += page.result.length;
    beforeCheckpoint({ changes, feedCharge });  // a crash here: the page is handled, not checkpointed
    await leases.items.upsert({ id: name, continuation: page.continuationToken });
  }
  return { changes, feedCharge };
}

// The naive handler: +1 on the device's tile, a new alert document for a hot reading. A change
// handled twice counts twice and alerts twice (with a random id, the second alert is a new document).
export function handler({ stats, alerts }) {
  return async (reading) => {
    await stats.item(reading.deviceId, reading.deviceId).patch([{ op: "incr", path: "/readings", value: 1 }]);
    if (reading.temperature > HOT_CELSIUS) {
      await alerts.items.create({
        id: randomUUID(), deviceId: reading.deviceId, readingId: reading.id, temperature: reading.temperature, ts: reading.ts,
      });
    }
  };
}
