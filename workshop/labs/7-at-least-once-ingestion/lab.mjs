// Lab 7: at-least-once ingestion from MQTT (QoS 1). Part 1: the same deliveries, one in ten of them
// a redelivery, stored with a random id (mistake.mjs) and with an id taken from the message, by
// create (409 on a redelivery) or by upsert (fix.mjs): the documents, duplicates and RU of each.
// Part 2: the backlog a reconnect hands over at once, written to a 400 RU/s container that throttles,
// retried at once or after the header (mistake.mjs) and with exponential backoff and jitter
// (fix.mjs): how long it takes, the requests and 429s it costs, from the client's errors and from
// the emulator's admin API.
import * as mistake from "./mistake.mjs";
import * as fix from "./fix.mjs";
import { START } from "../../lib/telemetry.mjs";
import { ru, times } from "../../lib/report.mjs";

const DEVICES = 20;
const READINGS_PER_MESSAGE = 10;  // a gateway publishes a device's readings in batches of ten
const WINDOW = 100;               // messages in flight after a reconnect (the subscriber's receive window)

export default {
  title: "at-least-once ingestion: duplicate deliveries, and retries against a throttled container",
  flags: ["--rate-limit"],
  async run({ emulator, report, quick }) {
    await duplicates({ emulator, report, quick });
    await storm({ emulator, report, quick });

    report.lesson("QoS 1 delivers a message at least once, so the writer must make a second delivery harmless: an id " +
      "taken from the message turns it into a 409 (or a replace) instead of a second document. When the container " +
      "throttles, retrying at once (or all at the header's instant) only multiplies the refused requests, since the " +
      "RU/s refill at their own pace; exponential backoff with jitter does the same work with a fraction of the 429s.");
    report.exercise("In fix.mjs, set capMs of retryWithBackoff to 100: predict the 429s and the seconds of the " +
      "backoff row against the immediate retry, then run again. Then raise WINDOW in lab.mjs to 200: which row's " +
      "429s grow, and which row's seconds?");
  },
};

// Part 1: duplicate deliveries.
async function duplicates({ emulator, report, quick }) {
  const messages = generate(quick ? 25 : 100);
  // The broker redelivers the messages whose PUBACK it did not get: one in ten, after a reconnect.
  const redelivered = messages.filter((_, i) => i % 10 === 3);
  const deliveries = [...messages, ...redelivered];
  report.note(`Part 1: ${messages.length} messages from ${DEVICES} devices, delivered ${deliveries.length} times ` +
    `(${redelivered.length} redeliveries), stored by three handlers.`);

  const { database } = await emulator.client().databases.createIfNotExists({ id: "ingestion" });
  const handlers = [
    ["random id, create (mistake)", mistake.store],
    ["message id, create: 409 = done (fix)", fix.store],
    ["message id, upsert (fix)", fix.storeByUpsert],
  ];
  const rows = [];
  const results = [];
  for (const [name, store] of handlers) {
    const id = `messages${results.length}`;
    const { container } = await database.containers.create({ id, partitionKey: { paths: ["/deviceId"] }, throughput: 10_000 });
    const outcomes = await pool(deliveries, 20, (message) => store(container, message));
    const seen = await partitionsOf(emulator, `dbs/ingestion/colls/${id}`);
    const charge = outcomes.reduce((sum, o) => sum + o.requestCharge, 0);
    const redeliveryCharges = outcomes.slice(messages.length).map((o) => o.requestCharge);
    const result = {
      documents: seen.documents,
      duplicatesStored: seen.documents - messages.length,
      flagged: outcomes.filter((o) => o.duplicate).length,
      charge,
      perRedelivery: redeliveryCharges.reduce((a, b) => a + b, 0) / redeliveryCharges.length,
      perFirstDelivery: outcomes.slice(0, messages.length).reduce((sum, o) => sum + o.requestCharge, 0) / messages.length,
    };
    results.push(result);
    rows.push([name, deliveries.length, result.documents, result.duplicatesStored, result.flagged, ru(charge), ru(result.perRedelivery)]);
  }
  report.table(["handler", "deliveries", "documents", "duplicates stored", "redeliveries recognized", "RU", "RU per redelivery"], rows);

  const [random, created, upserted] = results;
  report.check("random ids: every delivery became a document", random.documents === deliveries.length,
    `${random.documents} of ${deliveries.length}`);
  report.check("random ids: every redelivery is a duplicate document, and the handler could not tell",
    random.duplicatesStored === redelivered.length && random.flagged === 0, `${random.duplicatesStored} stored, ${random.flagged} flagged`);
  report.within("random ids: a redelivery costs a whole create (RU, against a first delivery)",
    random.perRedelivery / random.perFirstDelivery, { min: 0.95, max: 1.05 });
  for (const [name, result] of [["create", created], ["upsert", upserted]]) {
    report.check(`message ids, ${name}: one document per message`, result.documents === messages.length,
      `${result.documents} of ${messages.length}`);
    report.check(`message ids, ${name}: every redelivery recognized`, result.flagged === redelivered.length,
      `${result.flagged} of ${redelivered.length}`);
  }
  report.within("a 409 Conflict costs about 1 RU", created.perRedelivery, { min: 0.5, max: 2 });
  report.within("an upsert of a redelivery is a replace: about twice a create (RU ratio)",
    upserted.perRedelivery / upserted.perFirstDelivery, { min: 1.7, max: 2.5 });
  report.check("RU: create with 409s < random ids < upsert", created.charge < random.charge && random.charge < upserted.charge,
    `${ru(created.charge)}, ${ru(random.charge)}, ${ru(upserted.charge)}`);
}

// Part 2: the reconnect storm against a throttled container.
async function storm({ emulator, report, quick }) {
  const messages = generate(quick ? 8 : 20);
  const client = emulator.client({ retry: false });  // the lab's own retry loops, not the SDK's
  const { database } = await client.databases.createIfNotExists({ id: "storm" });
  const strategies = [
    ["retry at once (mistake)", mistake.retryImmediately],
    ["retry after the header, no jitter (mistake)", mistake.retryAfterHeader],
    ["backoff + jitter + header (fix)", fix.retryWithBackoff],
  ];
  const rows = [];
  const results = [];
  let throughput;
  for (const [name, retry] of strategies) {
    const id = `backlog${results.length}`;
    const { container } = await database.containers.create({ id, partitionKey: { paths: ["/deviceId"] }, throughput: 400 });
    const throttled = { count: 0, charged: 0, badSubstatus: 0, maxRetryAfterMs: 0, missingHeader: 0 };
    let requests = 0;
    const started = Date.now();
    const outcomes = await pool(messages, WINDOW, (message) => retry(async () => {
      requests++;
      try {
        return await fix.store(container, message);
      } catch (error) {
        if (error.code === 429) {
          throttled.count++;
          throttled.charged += Number(error.headers?.["x-ms-request-charge"] ?? NaN);
          if (error.substatus !== 3200) throttled.badSubstatus++;
          const header = error.headers?.["x-ms-retry-after-ms"];
          if (header === undefined) throttled.missingHeader++;
          else throttled.maxRetryAfterMs = Math.max(throttled.maxRetryAfterMs, Number(header));
        }
        throw error;
      }
    }));
    const seconds = (Date.now() - started) / 1000;
    const seen = await partitionsOf(emulator, `dbs/storm/colls/${id}`);
    throughput = seen.throughput;
    const charge = outcomes.reduce((sum, o) => sum + o.requestCharge, 0);
    const result = { name, seconds, requests, throttled, seen, charge };
    results.push(result);
    rows.push([name, messages.length, seconds.toFixed(1), requests, throttled.count, seen.throttled, ru(seen.requestUnits),
      ru(seen.requestUnits / messages.length), seen.documents]);
  }
  report.note(`Part 2: a reconnect hands over a backlog of ${messages.length} messages (${WINDOW} in flight) to a container ` +
    `of ${throughput} RU/s (${results[0].seen.partitions} physical partition), from a client that does not retry by itself.`);
  report.table(["retry on 429", "messages", "seconds", "requests", "429s seen", "429s (emulator)", "RU", "RU per message",
    "documents"], rows);
  const [immediate, header, backoff] = results;
  report.note(`The immediate retry sent ${times(immediate.throttled.count / backoff.throttled.count)} the 429s of the ` +
    `backoff, and finished in ${times(immediate.seconds / backoff.seconds)} its time.`);

  for (const r of results) {
    report.check(`${r.name}: every message stored once`, r.seen.documents === messages.length, `${r.seen.documents}`);
    report.check(`${r.name}: the client saw every 429 the emulator counted`, r.throttled.count === r.seen.throttled,
      `${r.throttled.count} seen, ${r.seen.throttled} counted`);
    report.check(`${r.name}: every 429 has substatus 3200 and x-ms-retry-after-ms`,
      r.throttled.badSubstatus === 0 && r.throttled.missingHeader === 0,
      `${r.throttled.badSubstatus} without 3200, ${r.throttled.missingHeader} without the header`);
    report.within(`${r.name}: x-ms-retry-after-ms at most (ms)`, r.throttled.maxRetryAfterMs, { min: 1, max: 1000 });
    report.within(`${r.name}: a 429 is charged nothing (x-ms-request-charge summed over the 429s)`, r.throttled.charged, { max: 0 });
    report.within(`${r.name}: the RU the emulator counted are the stored messages' charges (difference)`,
      Math.abs(r.seen.requestUnits - r.charge), { max: 0.05 });
    // The bucket starts full (one second of RU/s) and refills at the RU/s: no retry loop beats that.
    const floor = (r.seen.requestUnits - throughput) / throughput;
    report.within(`${r.name}: seconds against the throughput's floor ${floor.toFixed(1)} s`, r.seconds / floor, { min: 0.75 });
  }
  report.within("every row spent the same RU (spread relative to the mean)",
    (Math.max(...results.map((r) => r.charge)) - Math.min(...results.map((r) => r.charge))) / immediate.charge, { max: 0.01 });
  report.within("retrying at once: 429s against the backoff's", immediate.throttled.count / backoff.throttled.count, { min: 2 });
  report.within("retrying after the header without jitter: 429s against the backoff's",
    header.throttled.count / backoff.throttled.count, { min: 2 });
  // Its price is the tail: the last messages may sleep up to the backoff's ceiling (capMs, 1 s).
  report.within("the backoff finishes at most about its ceiling (1 s) after retrying at once (seconds later)",
    backoff.seconds - immediate.seconds, { max: 1.5 });
}

// `perDevice` messages from each device, each a batch of readings with the device's own sequence number.
function generate(perDevice) {
  const messages = [];
  for (let seq = 1; seq <= perDevice; seq++) {
    for (let device = 0; device < DEVICES; device++) {
      const deviceId = `gw-d${String(device).padStart(2, "0")}`;
      const sentAt = START + seq * 600_000 + device * 100;
      messages.push({
        deviceId, seq, sentAt,
        readings: Array.from({ length: READINGS_PER_MESSAGE }, (_, j) => ({
          t: sentAt - (READINGS_PER_MESSAGE - j) * 60_000,
          temperature: 18 + ((device * 7 + seq + j) % 12) / 2,
          humidity: 35 + ((device + seq * 3 + j) % 30),
        })),
      });
    }
  }
  return messages;
}

// Hands `items` to `handle` with at most `window` in flight (a subscriber's receive window); the
// outcomes in the items' order.
async function pool(items, window, handle) {
  const outcomes = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(window, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      outcomes[index] = await handle(items[index]);
    }
  }));
  return outcomes;
}

// A container's physical partitions from /_cosmolite/partitions, summed.
async function partitionsOf(emulator, path) {
  const { containers } = await emulator.admin("/_cosmolite/partitions");
  const found = containers.find((c) => c.container === path);
  if (!found) throw new Error(`no ${path} in /_cosmolite/partitions`);
  const total = (key) => found.physicalPartitions.reduce((sum, p) => sum + p[key], 0);
  return {
    documents: total("documents"), requestUnits: total("requestUnits"), throttled: total("throttledRequests"),
    partitions: found.physicalPartitions.length, throughput: found.throughput,
  };
}
