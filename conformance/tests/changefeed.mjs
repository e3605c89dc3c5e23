// The change feed through the SDK's ChangeFeedIterator and raw requests. Latest version (A-IM:
// Incremental feed) through the SDK's ChangeFeedIterator and
// raw requests: start from the beginning, now, a point in time or a continuation; scopes of a
// partition key, a hierarchical prefix, a feed range and the whole container; each changed item
// once in its latest version with _lsn; 304 with an etag when nothing is new; paging; and
// continuations that survive a split.
import { ChangeFeedMode, ChangeFeedPolicy, ChangeFeedRetentionTimeSpan, ChangeFeedStartFrom } from "@azure/cosmos";
import * as a from "../lib/assert.mjs";
import { seg } from "../lib/raw.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Reads an iterator until it reports 304 (the SDK does so after a whole round with no changes).
async function drain(iterator) {
  const rows = [];
  let continuationToken;
  for (let pages = 0; pages < 200; pages++) {
    const response = await iterator.readNext();
    continuationToken = response.continuationToken;
    if (response.statusCode === 304) return { rows, continuationToken };
    a.eq(response.statusCode, 200, "change feed page");
    rows.push(...response.result);
  }
  a.fail("the change feed never reported 304");
}

async function seed(container, count) {
  for (let i = 0; i < count; i++) await container.items.create({ id: `d${i}`, pk: `p${i % 5}`, n: i });
}

const ns = (rows) => rows.map((r) => r.n).sort((x, y) => x - y);

function rawFeed(ctx, database, container, headers) {
  return ctx.raw({
    path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`,
    headers: { "a-im": "Incremental feed", ...headers },
  });
}

export default [
  {
    name: "from the beginning: every item once, latest version, with _lsn; then 304",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, 12);
      await container.items.upsert({ id: "d3", pk: "p3", n: 103 });
      const { rows } = await drain(container.items.getChangeFeedIterator({
        changeFeedStartFrom: ChangeFeedStartFrom.Beginning(),
        maxItemCount: 4,
      }));
      a.deepEq(ns(rows), [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 103], "each item once, in its latest version");
      for (const row of rows) {
        a.isType(row._lsn, "number", "_lsn");
        a.ok(row._rid && row._etag && row._ts, "system properties");
      }
    },
  },
  {
    name: "a continuation returns only what changed since, and nothing deleted",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, 10);
      const first = await drain(container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() }));
      a.eq(first.rows.length, 10, "first round");
      await container.item("d2", "p2").replace({ id: "d2", pk: "p2", n: 202 });
      await container.items.create({ id: "new", pk: "p9", n: 99 });
      await container.item("d4", "p4").delete();
      const next = await drain(container.items.getChangeFeedIterator({
        changeFeedStartFrom: ChangeFeedStartFrom.Continuation(first.continuationToken),
      }));
      a.deepEq(ns(next.rows), [99, 202], "the replace and the create, not the delete");
      const again = await drain(container.items.getChangeFeedIterator({
        changeFeedStartFrom: ChangeFeedStartFrom.Continuation(next.continuationToken),
      }));
      a.deepEq(again.rows, [], "nothing new");
    },
  },
  {
    name: "start from now and from a point in time",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, 5);
      const now = container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Now() });
      const empty = await now.readNext();
      a.eq(empty.statusCode, 304, "nothing since now");
      await sleep(1100); // _ts has one-second resolution
      const since = new Date();
      await sleep(1100);
      await container.items.create({ id: "late", pk: "p1", n: 500 });
      const fromNow = await drain(now);
      a.deepEq(ns(fromNow.rows), [500], "what came after now");
      const fromTime = await drain(container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Time(since) }));
      a.deepEq(ns(fromTime.rows), [500], "what came after the time");
    },
  },
  {
    name: "scopes: a partition key, each feed range, and a hierarchical prefix",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, 15);
      const byKey = await drain(container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning("p1") }));
      a.deepEq(ns(byKey.rows), [1, 6, 11], "partition key p1");
      const ranges = await container.getFeedRanges();
      const seen = [];
      for (const range of ranges) {
        const { rows } = await drain(container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(range) }));
        seen.push(...rows);
      }
      a.deepEq(ns(seen), [...Array(15).keys()], `the ${ranges.length} feed ranges together hold every item once`);

      const { container: hierarchical } = await ctx.container({ partitionKey: { paths: ["/t", "/u"], kind: "MultiHash", version: 2 } });
      for (let i = 0; i < 6; i++) await hierarchical.items.create({ id: `h${i}`, t: `t${i % 2}`, u: `u${i}`, n: i });
      const prefix = await drain(hierarchical.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(["t1"]) }));
      a.deepEq(ns(prefix.rows), [1, 3, 5], "prefix t1");
    },
  },
  {
    name: "raw: pages follow x-ms-max-item-count and the etag; 304 keeps the etag; If-None-Match * starts now",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await seed(container, 7);
      const key = { "x-ms-documentdb-partitionkey": '["p1"]' };
      for (let i = 0; i < 4; i++) await container.items.upsert({ id: `x${i}`, pk: "p1", n: 100 + i });
      const first = await rawFeed(ctx, database, container, { ...key, "x-ms-max-item-count": 2 });
      a.eq(first.status, 200, `first page: ${first.text}`);
      a.deepEq(first.json.Documents.map((d) => d.n), [1, 6], "the oldest two changes of p1");
      const etag = a.header(first.headers, "etag");
      a.match(etag, /^"\d+"$/, "etag is a quoted LSN");
      const second = await rawFeed(ctx, database, container, { ...key, "x-ms-max-item-count": 10, "if-none-match": etag });
      a.deepEq(second.json.Documents.map((d) => d.n), [100, 101, 102, 103], "the rest");
      const last = a.header(second.headers, "etag");
      const none = await rawFeed(ctx, database, container, { ...key, "if-none-match": last });
      a.eq(none.status, 304, "nothing new");
      a.eq(a.header(none.headers, "etag"), last, "304 keeps the etag");
      const now = await rawFeed(ctx, database, container, { "if-none-match": "*" });
      a.eq(now.status, 304, "start from now");
      const bad = await rawFeed(ctx, database, container, { "if-none-match": '"x"' });
      a.rawError(bad, 400, "a malformed continuation");
    },
  },
  {
    name: "a consumer that checkpoints and restarts sees every change at least once",
    async run(ctx) {
      const { container } = await ctx.container();
      const seen = new Map();
      let checkpoint;
      let written = 0;
      for (let round = 0; round < 4; round++) {
        for (let i = 0; i < 5; i++, written++) await container.items.upsert({ id: `w${written % 7}`, pk: `p${written % 3}`, v: written });
        const iterator = container.items.getChangeFeedIterator({
          changeFeedStartFrom: checkpoint ? ChangeFeedStartFrom.Continuation(checkpoint) : ChangeFeedStartFrom.Beginning(),
          maxItemCount: 3,
        });
        const { rows, continuationToken } = await drain(iterator); // a restart: a new iterator each round
        for (const row of rows) seen.set(`${row.id}|${row.pk}`, Math.max(seen.get(`${row.id}|${row.pk}`) ?? -1, row.v));
        checkpoint = continuationToken;
      }
      const { resources } = await container.items.query("SELECT c.id, c.pk, c.v FROM c").fetchAll();
      a.eq(seen.size, resources.length, "every document seen");
      for (const doc of resources) a.eq(seen.get(`${doc.id}|${doc.pk}`), doc.v, `latest version of ${doc.id}/${doc.pk} seen`);
    },
  },
  {
    name: "all versions and deletes: creates, replaces, deletes and TTL expiries with their metadata, from now",
    timeoutMs: 20_000,
    async run(ctx) {
      const { container } = await ctx.container({
        defaultTtl: -1,
        changeFeedPolicy: new ChangeFeedPolicy(ChangeFeedRetentionTimeSpan.fromMinutes(10)),
      });
      const mode = { changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes };
      const iterator = container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Now(), ...mode });
      a.eq((await iterator.readNext()).statusCode, 304, "nothing since now");
      await container.items.create({ id: "a", pk: "x", v: 1 });
      await container.items.upsert({ id: "a", pk: "x", v: 2 });
      await container.item("a", "x").delete();
      await container.items.create({ id: "t", pk: "x", ttl: 1 });
      await sleep(3500); // expiry, then the sweeper's next pass
      const rows = [];
      for (let i = 0; i < 20; i++) {
        const page = await iterator.readNext();
        if (page.statusCode === 304 && rows.length >= 5) break;
        rows.push(...page.result);
      }
      const seen = rows.map((r) => [r.metadata.operationType, r.current?.v ?? null, r.metadata.id ?? r.current.id]);
      a.deepEq(seen, [["create", 1, "a"], ["replace", 2, "a"], ["delete", null, "a"], ["create", null, "t"], ["delete", null, "t"]],
        "every version of one logical partition, in order");
      const [created, replaced, deleted, , expired] = rows;
      a.ok(created.metadata.lsn < replaced.metadata.lsn && replaced.metadata.lsn < deleted.metadata.lsn, "LSNs grow");
      a.eq(replaced.metadata.previousImageLSN, created.metadata.lsn, "a replace names the version it replaced");
      a.eq(deleted.metadata.previousImageLSN, replaced.metadata.lsn, "a delete names the version it deleted");
      a.deepEq(deleted.metadata.partitionKey, { pk: "x" }, "a delete carries the partition key");
      a.isType(created.metadata.crts, "number", "crts");
      a.eq(expired.metadata.timeToLiveExpired, true, "a TTL expiry is marked");
      const fullFidelity = { "a-im": "Full-Fidelity Feed", "x-ms-cosmos-changefeed-wire-format-version": "2021-09-15" };
      const database = container.database;
      a.rawError(await rawFeed(ctx, database, container, fullFidelity), 400, "all versions and deletes from the beginning");
      // A container without a changeFeedPolicy: the first read from now starts its log (the service
      // serves the mode on any container of a continuous-backup account), and later reads see every change.
      const { container: plain } = await ctx.container();
      const started = await rawFeed(ctx, plain.database, plain, { ...fullFidelity, "if-none-match": "*" });
      a.eq(started.status, 304, `first read from now: ${started.text}`);
      await plain.items.create({ id: "n", pk: "p" });
      await plain.item("n", "p").delete();
      const logged = await rawFeed(ctx, plain.database, plain, { ...fullFidelity, "if-none-match": a.header(started.headers, "etag") });
      a.eq(logged.status, 200, `read from the first etag: ${logged.text}`);
      a.deepEq(logged.json.Documents.map((entry) => entry.metadata.operationType), ["create", "delete"], "operations");
      a.deepEq(logged.json.Documents[1].current, {}, "a delete's current image is empty");
    },
  },
  {
    name: "a split between two reads: the old range is gone and its children continue from its etag",
    requires: ["managed"],
    async run(ctx) {
      const database = await ctx.database();
      const { container } = await database.containers.create({ id: "cf-split", partitionKey: { paths: ["/pk"] } }, { offerThroughput: 20000 });
      await seed(container, 30);
      const containerPath = `/dbs/${seg(database.id)}/colls/${seg(container.id)}`;
      const ranges = (await ctx.raw({ path: `${containerPath}/pkranges` })).json.PartitionKeyRanges;
      const victim = ranges[0].id;
      const first = await rawFeed(ctx, database, container, { "x-ms-documentdb-partitionkeyrangeid": victim, "x-ms-max-item-count": 1000 });
      a.eq(first.status, 200, "first read of the range");
      const etag = a.header(first.headers, "etag");
      const before = first.json.Documents.map((d) => d.id);

      const split = await ctx.raw({ method: "POST", path: `/_cosmolite${containerPath}/pkranges/${victim}/split`, auth: "none", headers: { "x-cosmolite-key": ctx.key } });
      a.eq(split.status, 200, `split: ${split.text}`);
      const gone = await rawFeed(ctx, database, container, { "x-ms-documentdb-partitionkeyrangeid": victim, "if-none-match": etag });
      a.rawError(gone, 410, "the split range", { substatus: 1002 });

      // Change every document of the old range, then read its children from the old etag.
      for (const id of before) {
        const n = Number(id.slice(1));
        await container.items.upsert({ id, pk: `p${n % 5}`, n: n + 1000 });
      }
      const children = split.json.PartitionKeyRanges.filter((r) => r.parents.includes(victim));
      const after = [];
      for (const child of children) {
        const page = await rawFeed(ctx, database, container, { "x-ms-documentdb-partitionkeyrangeid": child.id, "if-none-match": etag });
        if (page.status === 200) after.push(...page.json.Documents);
      }
      a.deepEq(after.map((d) => d.id).sort(), [...before].sort(), "each changed document once, from the children");
      a.ok(after.every((d) => d.n >= 1000), "in its latest version");

      // And the SDK, from the beginning, sees every item once across the new ranges.
      const { rows } = await drain(container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() }));
      a.eq(rows.length, 30, "every item once after the split");
    },
  },
];
