// The first ingestion service: it subscribes to the devices' MQTT topic with QoS 1 and stores each
// message it is handed. QoS 1 means "at least once": when the broker does not get the PUBACK in
// time (a lost packet, a restart, a reconnect), it delivers the message again.
import { randomUUID } from "node:crypto";

// A fresh id for every delivery: a redelivered message becomes a second document, and every count,
// average and alert computed from the container is now wrong. Nothing here can tell it happened.
export async function store(container, message) {
  const { requestCharge } = await container.items.create({ id: randomUUID(), ...message });
  return { requestCharge, duplicate: false };
}

// Throttled (429)? Try again at once. After a reconnect the broker hands over the whole backlog, so
// every in-flight message does this together: a storm of requests the partition must refuse, and
// not one of them gets the container's RU/s refilled any sooner.
export async function retryImmediately(write) {
  for (;;) {
    try {
      return await write();
    } catch (error) {
      if (error.code !== 429) throw error;
    }
  }
}

// Better: wait what the service says (x-ms-retry-after-ms, the SDK's error.retryAfterInMs). But every
// throttled message is told the same short wait, so they all come back at the same instant: one
// gets in, the others are refused again. Without jitter, the herd stays a herd.
export async function retryAfterHeader(write) {
  for (;;) {
    try {
      return await write();
    } catch (error) {
      if (error.code !== 429) throw error;
      await sleep(error.retryAfterInMs ?? 0);
    }
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
