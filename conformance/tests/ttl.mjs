// Time to live: the container's defaultTtl (absent = off, -1 = on without a default, N seconds) and
// the item's ttl (-1 = never, N seconds, ignored while the container has TTL off). From _ts + ttl an
// item is invisible to point reads, queries, the read feed and the change feed; turning TTL on later
// applies to the items already there; an expired id can be created again.
import { ChangeFeedStartFrom } from "@azure/cosmos";
import * as a from "../lib/assert.mjs";
import { seg } from "../lib/raw.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function ids(container, options = {}) {
  const { resources } = await container.items.query("SELECT VALUE c.id FROM c", options).fetchAll();
  return resources.sort();
}

async function changeFeedIds(container, scope) {
  const iterator = container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(scope) });
  const rows = [];
  for (let i = 0; i < 100; i++) {
    const page = await iterator.readNext();
    if (page.statusCode === 304) break;
    rows.push(...page.result);
  }
  return rows.map((r) => r.id).sort();
}

export default [
  {
    name: "items with ttl=2 vanish from reads, queries and feeds; ttl=-1 and default -1 stay",
    timeoutMs: 20_000,
    async run(ctx) {
      const { database, container } = await ctx.container({ defaultTtl: -1 });
      await container.items.create({ id: "short", pk: "a", ttl: 2 });
      await container.items.create({ id: "forever", pk: "a", ttl: -1 });
      await container.items.create({ id: "default", pk: "b" });
      a.deepEq(await ids(container), ["default", "forever", "short"], "all three before expiry");
      a.status(await container.item("short", "a").read(), 200, "readable before expiry");
      await sleep(3200);
      a.status(await container.item("short", "a").read(), 404, "point read after expiry");
      a.deepEq(await ids(container), ["default", "forever"], "cross-partition query after expiry");
      a.deepEq(await ids(container, { partitionKey: "a" }), ["forever"], "single-partition query after expiry");
      a.deepEq(await changeFeedIds(container), ["default", "forever"], "change feed of the container after expiry");
      a.deepEq(await changeFeedIds(container, "a"), ["forever"], "change feed of partition key a after expiry");
      const byRange = [];
      for (const range of await container.getFeedRanges()) byRange.push(...(await changeFeedIds(container, range)));
      a.deepEq(byRange.sort(), ["default", "forever"], "change feed of each feed range after expiry");
      const feed = await ctx.raw({ path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs` });
      a.deepEq(feed.json.Documents.map((d) => d.id).sort(), ["default", "forever"], "read feed after expiry");
      a.status(await container.items.create({ id: "short", pk: "a", ttl: 2 }), 201, "the id can be created again");
    },
  },
  {
    name: "defaultTtl N expires items without their own ttl; an item ttl overrides it; TTL off ignores item ttl",
    timeoutMs: 20_000,
    async run(ctx) {
      const { container } = await ctx.container({ defaultTtl: 2 });
      await container.items.create({ id: "inherits", pk: "a" });
      await container.items.create({ id: "keeps", pk: "a", ttl: -1 });
      const { container: off } = await ctx.container();
      await off.items.create({ id: "ignored", pk: "a", ttl: 1 });
      await sleep(3200);
      a.deepEq(await ids(container), ["keeps"], "default 2 s applied, -1 kept");
      a.deepEq(await ids(off), ["ignored"], "ttl ignored while the container has TTL off");
      await a.rejects(container.items.create({ id: "bad", pk: "a", ttl: 0 }), 400, "ttl 0");
      await a.rejects(container.items.create({ id: "bad", pk: "a", ttl: "soon" }), 400, "ttl not a number");
    },
  },
  {
    name: "turning TTL on later applies to the items already there",
    timeoutMs: 20_000,
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "old", pk: "a" });
      await container.items.create({ id: "pinned", pk: "a", ttl: -1 });
      await sleep(2100);
      const { resource: definition } = await container.read();
      await container.replace({ ...definition, defaultTtl: 1 });
      a.deepEq(await ids(container), ["pinned"], "the old item expired at once (its _ts is over a second ago)");
      a.status(await container.item("old", "a").read(), 404, "and its point read");
    },
  },
];
