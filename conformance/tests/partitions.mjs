// Physical partitions: the partition key ranges feed, documents spread over ranges by their
// effective partition key, the SDK's cross-partition query protocol (400/1004 + query plan,
// per-range queries merged by the SDK), partition-key pruning, fan-out headers, splits (410/1002
// and queries that resume across a split), the logical partition size cap (403/1014) and
// hierarchical partition keys. The HTTPS run starts the server with --min-physical-partitions 4.
import * as a from "../lib/assert.mjs";
import { makeClient } from "../lib/context.mjs";
import { seg } from "../lib/raw.mjs";
import { ServerProcess } from "../lib/server.mjs";

const containerPath = (database, container) => `/dbs/${seg(database.id)}/colls/${seg(container.id)}`;

async function readRanges(ctx, database, container, headers = {}) {
  const response = await ctx.raw({ path: `${containerPath(database, container)}/pkranges`, headers });
  return response;
}

function rawQuery(ctx, database, container, query, headers = {}) {
  return ctx.raw({
    method: "POST",
    path: `${containerPath(database, container)}/docs`,
    body: typeof query === "string" ? { query, parameters: [] } : query,
    headers: {
      "content-type": "application/query+json",
      "x-ms-documentdb-isquery": "True",
      "x-ms-documentdb-query-enablecrosspartition": "True",
      ...headers,
    },
  });
}

// Every row of a query run on one range, through its continuations.
async function queryRange(ctx, database, container, query, rangeId) {
  const rows = [];
  let continuation;
  for (let page = 0; page < 100; page++) {
    const response = await rawQuery(ctx, database, container, query, {
      "x-ms-documentdb-partitionkeyrangeid": rangeId,
      "x-ms-max-item-count": 5,
      "x-ms-continuation": continuation,
    });
    a.eq(response.status, 200, `query on range ${rangeId}: ${response.text}`);
    rows.push(...response.json.Documents);
    continuation = response.headers["x-ms-continuation"];
    if (!continuation) return rows;
  }
  a.fail("a range query never ends");
}

async function seed(container, count, doc = (i) => ({ id: `d${i}`, pk: `p${i}`, n: i, g: `g${i % 3}` })) {
  for (let i = 0; i < count; i++) await container.items.create(doc(i));
}

const expectedRanges = (ctx) => (ctx.tls ? 4 : 1);

export default [
  {
    name: "the pkranges feed tiles the key space with the configured number of ranges, and answers 304 when current",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const response = await readRanges(ctx, database, container);
      a.eq(response.status, 200, "GET pkranges");
      const ranges = response.json.PartitionKeyRanges;
      if (ctx.managed) a.eq(ranges.length, expectedRanges(ctx), "ranges of a new container");
      a.eq(response.json._count, ranges.length, "_count");
      a.eq(a.header(response.headers, "x-ms-item-count"), String(ranges.length), "x-ms-item-count");
      a.eq(ranges[0].minInclusive, "", "first range starts at the minimum");
      a.eq(ranges.at(-1).maxExclusive, "FF", "last range ends at FF");
      for (let i = 1; i < ranges.length; i++) {
        a.eq(ranges[i].minInclusive, ranges[i - 1].maxExclusive, `range ${i} starts where ${i - 1} ends`);
        a.ok(ranges[i].minInclusive > ranges[i - 1].minInclusive, "ranges in key order");
      }
      for (const range of ranges) {
        a.isType(range.id, "string", "id");
        a.deepEq(range.parents, [], "parents of an original range");
        a.eq(range.status, "online", "status");
        a.match(range._rid, /UA==$/, "a partition key range rid");
        for (const field of ["_etag", "_self", "_ts", "ridPrefix", "throughputFraction"]) {
          a.ok(field in range, `range has ${field}`);
        }
      }
      const etag = a.header(response.headers, "etag");
      const again = await readRanges(ctx, database, container, { "a-im": "Incremental feed", "if-none-match": etag });
      a.eq(again.status, 304, "incremental read with the current etag");
      a.eq(a.header(again.headers, "etag"), etag, "304 keeps the etag");

      // Rid-based, as the .NET SDK reads it.
      const databaseRid = (await database.read()).resource._rid;
      const containerRid = (await container.read()).resource._rid;
      const byRid = await ctx.raw({
        path: `/dbs/${databaseRid}/colls/${containerRid}/pkranges`,
        resourceLink: containerRid.toLowerCase(), // rid-based links sign the lowercased rid
      });
      a.eq(byRid.status, 200, `rid-based pkranges: ${byRid.text}`);
      a.eq(byRid.json.PartitionKeyRanges.length, ranges.length, "same ranges by rid");
    },
  },
  {
    name: "provisioned throughput decides the physical partitions: one per 10,000 RU/s (manual or autoscale maximum)",
    async run(ctx) {
      const database = await ctx.database();
      const manual = (await database.containers.create({ id: "m", partitionKey: { paths: ["/pk"] } }, { offerThroughput: 30000 })).container;
      const autoscale = (await database.containers.create({ id: "a", partitionKey: { paths: ["/pk"] }, maxThroughput: 50000 })).container;
      const small = (await database.containers.create({ id: "s", partitionKey: { paths: ["/pk"] } }, { offerThroughput: 400 })).container;
      const count = async (container) => (await readRanges(ctx, database, container)).json.PartitionKeyRanges.length;
      const floor = ctx.managed ? expectedRanges(ctx) : 1;
      a.eq(await count(manual), Math.max(3, floor), "30,000 RU/s");
      a.eq(await count(autoscale), Math.max(5, floor), "autoscale up to 50,000 RU/s");
      if (ctx.managed) a.eq(await count(small), floor, "400 RU/s");
    },
  },
  {
    name: "documents spread over the ranges by partition key, and each range returns only its own",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await seed(container, 40);
      const ranges = (await readRanges(ctx, database, container)).json.PartitionKeyRanges;
      const seen = new Map();
      for (const range of ranges) {
        const rows = await queryRange(ctx, database, container, "SELECT c.id, c.pk FROM c", range.id);
        if (ranges.length > 1) a.ok(rows.length > 0 && rows.length < 40, `range ${range.id} holds ${rows.length} of 40`);
        for (const row of rows) {
          a.ok(!seen.has(row.id), `${row.id} in two ranges`);
          seen.set(row.id, range.id);
        }
      }
      a.eq(seen.size, 40, "every document in exactly one range");
      // A point read and a partition-key query find each document wherever it lives.
      for (const i of [0, 17, 39]) {
        a.status(await container.item(`d${i}`, `p${i}`).read(), 200, `read d${i}`);
        const { resources } = await container.items.query("SELECT * FROM c", { partitionKey: `p${i}` }).fetchAll();
        a.deepEq(resources.map((r) => r.id), [`d${i}`], `partition query p${i}`);
      }
    },
  },
  {
    name: "a cross-partition ORDER BY without the SDK's pipeline gets 400/1004 with the query plan",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await seed(container, 4);
      const response = await rawQuery(ctx, database, container, "SELECT * FROM c ORDER BY c.n");
      if (expectedRanges(ctx) === 1 && ctx.managed) {
        a.eq(response.status, 200, "one physical partition: the gateway serves it");
        return;
      }
      a.rawError(response, 400, "ORDER BY across partitions", { substatus: 1004 });
      a.isType(response.json.additionalErrorInfo, "string", "additionalErrorInfo");
      const plan = JSON.parse(response.json.additionalErrorInfo);
      a.deepEq(plan.queryInfo.orderBy, ["Ascending"], "plan orderBy");
      a.deepEq(plan.queryRanges, [{ min: "", max: "FF", isMinInclusive: true, isMaxInclusive: false }], "queryRanges");

      const disabled = await rawQuery(ctx, database, container, "SELECT * FROM c", {
        "x-ms-documentdb-query-enablecrosspartition": "False",
      });
      a.rawError(disabled, 400, "cross-partition query with enablecrosspartition false");
      a.match(disabled.json.message, /Cross partition query is required but disabled/, "message");

      // A plain filter is served by the gateway across every range, pages in range order.
      const plain = await rawQuery(ctx, database, container, "SELECT c.id FROM c WHERE c.n >= 0");
      a.eq(plain.status, 200, `plain cross-partition query: ${plain.text}`);
      a.eq(plain.json.Documents.length, 4, "rows");
      a.eq(a.header(plain.headers, "x-cosmolite-physical-partitions"), String(expectedRanges(ctx)), "fan-out header");
      a.eq(a.header(plain.headers, "x-cosmolite-documents-scanned"), "4", "documents scanned");
      a.eq(a.header(plain.headers, "x-cosmolite-narrowed-by-partition-key"), "false", "not narrowed");
    },
  },
  {
    name: "the SDK merges cross-partition ORDER BY, TOP, OFFSET LIMIT, aggregates, GROUP BY and DISTINCT with small pages",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, 30);
      const all = async (query, options = {}) => (await container.items.query(query, { maxItemCount: 2, ...options }).fetchAll()).resources;
      a.deepEq((await all("SELECT VALUE c.n FROM c ORDER BY c.n DESC")), [...Array(30).keys()].reverse(), "ORDER BY DESC");
      a.deepEq(await all("SELECT TOP 5 VALUE c.n FROM c ORDER BY c.n"), [0, 1, 2, 3, 4], "TOP + ORDER BY");
      a.deepEq(await all("SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 7 LIMIT 4"), [7, 8, 9, 10], "OFFSET LIMIT");
      a.deepEq(await all("SELECT VALUE COUNT(1) FROM c"), [30], "COUNT");
      a.deepEq(await all("SELECT VALUE SUM(c.n) FROM c"), [435], "SUM");
      a.deepEq(await all("SELECT VALUE AVG(c.n) FROM c"), [14.5], "AVG");
      a.deepEq(await all("SELECT VALUE MIN(c.n) FROM c"), [0], "MIN");
      a.deepEq(await all("SELECT VALUE MAX(c.id) FROM c"), ["d9"], "MAX of strings");
      const groups = await all("SELECT c.g, COUNT(1) AS n, SUM(c.n) AS total FROM c GROUP BY c.g");
      groups.sort((x, y) => x.g.localeCompare(y.g));
      a.deepEq(groups, [{ g: "g0", n: 10, total: 135 }, { g: "g1", n: 10, total: 145 }, { g: "g2", n: 10, total: 155 }], "GROUP BY");
      const distinct = await all("SELECT DISTINCT VALUE c.g FROM c");
      a.deepEq(distinct.sort(), ["g0", "g1", "g2"], "DISTINCT");
      const ordered = await all("SELECT c.id, c.n FROM c WHERE c.n >= 20 ORDER BY c.n");
      a.deepEq(ordered.map((r) => r.n), [20, 21, 22, 23, 24, 25, 26, 27, 28, 29], "filtered ORDER BY");
    },
  },
  {
    name: "a partition-key filter narrows the query plan to one range",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await seed(container, 12);
      const planned = await rawQuery(ctx, database, container, "SELECT * FROM c WHERE c.pk = 'p3' ORDER BY c.n", {
        "x-ms-cosmos-is-query-plan-request": "True",
        "x-ms-cosmos-supported-query-features": "OrderBy,Top,Aggregate,Distinct,OffsetAndLimit,MultipleOrderBy,GroupBy",
      });
      a.eq(planned.status, 200, `plan: ${planned.text}`);
      const [range] = planned.json.queryRanges;
      a.eq(planned.json.queryRanges.length, 1, "one query range");
      a.ok(range.min === range.max && range.isMinInclusive && range.isMaxInclusive, "a point range");
      a.match(range.min, /^[0-9A-F]+$/, "an effective partition key");
      a.eq(a.header(planned.headers, "x-cosmolite-physical-partitions"), "1", "ranges reached by the plan");

      const full = await rawQuery(ctx, database, container, "SELECT * FROM c ORDER BY c.n", {
        "x-ms-cosmos-is-query-plan-request": "True",
      });
      a.eq(a.header(full.headers, "x-cosmolite-physical-partitions"), String(expectedRanges(ctx)), "an unfiltered plan reaches every range");

      const { resources } = await container.items.query("SELECT VALUE c.n FROM c WHERE c.pk = 'p3' ORDER BY c.n").fetchAll();
      a.deepEq(resources, [3], "the SDK runs it on that range");
      const byHeader = await rawQuery(ctx, database, container, "SELECT * FROM c", {
        "x-ms-documentdb-partitionkey": '["p3"]',
      });
      a.eq(a.header(byHeader.headers, "x-cosmolite-physical-partitions"), "1", "a partition key header reaches one range");
      a.eq(a.header(byHeader.headers, "x-cosmolite-narrowed-by-partition-key"), "true", "narrowed");
      a.eq(a.header(byHeader.headers, "x-cosmolite-documents-scanned"), "1", "scans one document");
    },
  },
  {
    name: "a filter that pins one partition key is single-partition: served without the cross-partition header, ORDER BY and aggregates included",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await seed(container, 12);
      const noConsent = { "x-ms-documentdb-query-enablecrosspartition": undefined };
      const ordered = await rawQuery(ctx, database, container,
        { query: "SELECT VALUE c.n FROM c WHERE c.pk = @pk ORDER BY c.n DESC", parameters: [{ name: "@pk", value: "p3" }] },
        noConsent);
      a.eq(ordered.status, 200, `pinned ORDER BY: ${ordered.text}`);
      a.deepEq(ordered.json.Documents, [3], "rows");
      const rangeId = a.header(ordered.headers, "x-ms-documentdb-partitionkeyrangeid");
      a.match(rangeId, /^\d+$/, "the serving range is named");
      a.match(a.header(ordered.headers, "x-ms-session-token"), new RegExp(`^${rangeId}:-1#\\d+$`), "the session token names it");
      const counted = await rawQuery(ctx, database, container, "SELECT VALUE COUNT(1) FROM c WHERE c.pk = 'p3'", noConsent);
      a.eq(counted.status, 200, `pinned COUNT: ${counted.text}`);
      a.deepEq(counted.json.Documents, [1], "count");

      // Two keys, or none, is cross-partition even when one physical partition holds everything.
      for (const query of ["SELECT * FROM c WHERE c.pk IN ('p1', 'p2')", "SELECT * FROM c"]) {
        const refused = await rawQuery(ctx, database, container, query, noConsent);
        a.rawError(refused, 400, `${query} without consent`);
        a.match(refused.json.message, /Cross partition query is required but disabled/, "message");
      }
    },
  },
  {
    name: "point operations name the physical partition that served them in x-ms-documentdb-partitionkeyrangeid and the session token",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await seed(container, 8);
      const ranges = (await readRanges(ctx, database, container)).json.PartitionKeyRanges;
      const seen = new Set();
      for (let i = 0; i < 8; i++) {
        const read = await container.item(`d${i}`, `p${i}`).read();
        const rangeId = a.header(read.headers, "x-ms-documentdb-partitionkeyrangeid");
        a.ok(ranges.some((range) => range.id === rangeId), `range ${rangeId} is one of the container's`);
        a.match(a.header(read.headers, "x-ms-session-token"), new RegExp(`^${rangeId}:-1#\\d+$`), "session token");
        const byRange = await rawQuery(ctx, database, container, `SELECT VALUE c.id FROM c WHERE c.id = 'd${i}'`,
          { "x-ms-documentdb-partitionkeyrangeid": rangeId });
        a.deepEq(byRange.json.Documents, [`d${i}`], "that range holds the document");
        seen.add(rangeId);
      }
      if (expectedRanges(ctx) > 1) a.ok(seen.size > 1, "documents of several ranges");
    },
  },
  {
    name: "GET /_cosmolite/queries sums a query's charge over every range and page, with its fan-out",
    requires: ["managed"],
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, 24);
      const text = `SELECT c.id, c.n FROM c WHERE c.n >= 3 AND c.id != '${ctx.uid("q")}' ORDER BY c.n DESC`;
      const response = await container.items.query(text, { maxItemCount: 2 }).fetchAll();
      a.eq(response.resources.length, 21, "rows");
      const narrowText = `SELECT * FROM c WHERE c.pk = 'p5' AND c.id != '${ctx.uid("q")}'`;
      await container.items.query(narrowText).fetchAll();
      const refused = await ctx.raw({ path: "/_cosmolite/queries", auth: "none" });
      a.status(refused, 401, "GET /_cosmolite/queries without the key");
      a.eq(typeof refused.json?.code, "string", "a Cosmos-shaped error");
      const log = await ctx.raw({ path: "/_cosmolite/queries", auth: "none", headers: { "x-cosmolite-key": ctx.key } });
      a.eq(log.status, 200, "GET /_cosmolite/queries with x-cosmolite-key");
      const entry = log.json.queries.find((q) => q.query === text);
      a.ok(entry, `the ORDER BY query is listed: ${log.text.slice(0, 400)}`);
      a.eq(entry.physicalPartitions, expectedRanges(ctx), "ranges reached");
      a.eq(entry.narrowedByPartitionKey, false, "not narrowed");
      a.eq(entry.documentsReturned, 21, "documents returned over all pages");
      a.ok(entry.requests >= expectedRanges(ctx), `at least one page per range (${entry.requests})`);
      a.ok(Math.abs(entry.requestCharge - response.requestCharge) < 0.05,
        `logged charge ${entry.requestCharge} equals the SDK's total ${response.requestCharge}`);
      const narrow = log.json.queries.find((q) => q.query === narrowText);
      a.ok(narrow, "the partition-key query is listed");
      a.eq(narrow.narrowedByPartitionKey, true, "narrowed by the partition key");
      a.eq(narrow.physicalPartitions, 1, "one range");
      a.eq(narrow.documentsScanned, 1, "scans only its logical partition");
      a.ok(Array.isArray(entry.accessPaths) && entry.accessPaths.length > 0 && entry.accessPaths.every((p) => typeof p === "string"),
        `how its pages read: ${JSON.stringify(entry.accessPaths)}`);
    },
  },
  {
    name: "a split mid-query: the old range answers 410/1002, its children list it as parent, and queries resume from tokens issued before it",
    requires: ["managed"],
    async run(ctx) {
      // 20,000 RU/s: at least two physical partitions in either mode.
      const database = await ctx.database();
      const { container } = await database.containers.create({ id: "split", partitionKey: { paths: ["/pk"] } }, { offerThroughput: 20000 });
      await seed(container, 40);
      const before = (await readRanges(ctx, database, container)).json.PartitionKeyRanges;
      a.eq(before.length, Math.max(2, expectedRanges(ctx)), "ranges for 20,000 RU/s");
      const etagBefore = a.header((await readRanges(ctx, database, container)).headers, "etag");
      // Continuation tokens taken before the split, for an SDK-merged ORDER BY, a TOP (per-range
      // pages) and a plain query the gateway serves.
      const queries = [
        ["SELECT c.id, c.n FROM c ORDER BY c.n", true],
        ["SELECT TOP 100 c.id, c.n FROM c", false],
        ["SELECT c.id, c.n FROM c", false],
      ];
      const started = [];
      for (const [query, ordered] of queries) {
        const iterator = container.items.query(query, { maxItemCount: 3, enableQueryControl: true });
        const rows = [];
        let page;
        for (let i = 0; i < 2; i++) {
          page = await iterator.fetchNext();
          rows.push(...page.resources);
        }
        a.ok(page.continuationToken, `${query}: a continuation token after two pages`);
        started.push({ query, ordered, rows, token: page.continuationToken });
      }
      const rangeQuery = await queryRange(ctx, database, container, "SELECT c.id FROM c", before[0].id);

      const victim = before[0].id;
      const splitPath = `/_cosmolite${containerPath(database, container)}/pkranges/${victim}/split`;
      const unsigned = await ctx.raw({ method: "POST", path: splitPath, auth: "none" });
      a.status(unsigned, 401, "a split without the key");
      // Signed with the master key as a request for the account (empty resource type and link).
      const split = await ctx.raw({ method: "POST", path: splitPath, resourceType: "", resourceLink: "" });
      a.eq(split.status, 200, `split: ${split.text}`);
      const after = split.json.PartitionKeyRanges;
      a.eq(after.length, before.length + 1, "one more range");
      const children = after.filter((r) => r.parents.includes(victim));
      a.eq(children.length, 2, "two children");
      a.eq(children[0].minInclusive, before[0].minInclusive, "first child starts where the parent did");
      a.eq(children[1].maxExclusive, before[0].maxExclusive, "second child ends where the parent did");
      a.eq(children[0].maxExclusive, children[1].minInclusive, "children meet");

      const gone = await rawQuery(ctx, database, container, "SELECT * FROM c", { "x-ms-documentdb-partitionkeyrangeid": victim });
      a.rawError(gone, 410, "query on the split range", { substatus: 1002 });
      const childRows = [];
      for (const child of children) childRows.push(...(await queryRange(ctx, database, container, "SELECT c.id FROM c", child.id)));
      a.deepEq(childRows.map((r) => r.id).sort(), rangeQuery.map((r) => r.id).sort(), "the children hold the parent's documents");

      const delta = await readRanges(ctx, database, container, { "a-im": "Incremental feed", "if-none-match": etagBefore });
      a.eq(delta.status, 200, "incremental read after the split");
      a.deepEq(delta.json.PartitionKeyRanges.map((r) => r.id).sort(), children.map((r) => r.id).sort(), "the delta lists the children");

      for (const { query, ordered, rows, token } of started) {
        const resumed = container.items.query(query, { maxItemCount: 3, enableQueryControl: true, continuationToken: token });
        while (resumed.hasMoreResults()) rows.push(...((await resumed.fetchNext()).resources ?? []));
        const ns = rows.map((r) => r.n);
        if (ordered) a.deepEq(ns, [...Array(40).keys()], `${query}: every row once, in order, across the split`);
        else a.deepEq([...ns].sort((x, y) => x - y), [...Array(40).keys()], `${query}: every row once across the split`);
      }
      const { resources: count } = await container.items.query("SELECT VALUE COUNT(1) FROM c").fetchAll();
      a.deepEq(count, [40], "count after the split");
      for (const i of [0, 5, 31]) a.status(await container.item(`d${i}`, `p${i}`).read(), 200, `point read d${i} after split`);
    },
  },
  {
    name: "a logical partition over --logical-partition-cap rejects writes with 403/1014; reads, deletes and other partitions still work",
    requires: ["managed"],
    async run(ctx) {
      const server = new ServerProcess({ tls: ctx.tls, inMemory: true, extraArgs: ["--logical-partition-cap", "20000"] });
      ctx.defer(() => server.stop());
      await server.start();
      const client = makeClient(server.endpoint, server.key);
      ctx.defer(() => client.dispose());
      const { database } = await client.databases.create({ id: "cap" });
      const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
      const filler = "x".repeat(3000);
      let written = 0;
      let error;
      for (; written < 20; written++) {
        try {
          await container.items.create({ id: `h${written}`, pk: "hot", filler });
        } catch (e) {
          error = e;
          break;
        }
      }
      a.ok(error, "the hot partition eventually refuses a write");
      a.ok(written >= 5 && written <= 7, `about 20 KB fit (${written} documents of ~3 KB)`);
      a.eq(error.code, 403, "status");
      a.eq(error.substatus, 1014, "substatus");
      a.match(error.message, /Partition key reached maximum size of/, "message");
      a.status(await container.item("h0", "hot").read(), 200, "reads still work");
      a.status(await container.items.create({ id: "c0", pk: "cold", filler }), 201, "another partition still accepts writes");
      a.status(await container.item("h0", "hot").delete(), 204, "deletes still work");
      a.status(await container.items.create({ id: "again", pk: "hot", filler }), 201, "room again after a delete");
    },
  },
  {
    name: "hierarchical keys: point operations with the full key, queries with a prefix reach every overlapping range",
    async run(ctx) {
      const { container } = await ctx.container({ partitionKey: { paths: ["/tenant", "/user"], kind: "MultiHash", version: 2 } });
      for (let t = 0; t < 3; t++) {
        for (let u = 0; u < 5; u++) await container.items.create({ id: `t${t}u${u}`, tenant: `t${t}`, user: `u${u}`, n: t * 10 + u });
      }
      const read = await container.item("t1u3", ["t1", "u3"]).read();
      a.status(read, 200, "point read with the full key");
      a.eq(read.resource.n, 13, "the right document");
      a.status(await container.item("t1u3", ["t1", "u4"]).read(), 404, "a wrong full key finds nothing");
      const { resources: full } = await container.items.query("SELECT VALUE c.n FROM c", { partitionKey: ["t2", "u1"] }).fetchAll();
      a.deepEq(full, [21], "query with the full key");
      const { resources: prefix } = await container.items.query("SELECT VALUE c.n FROM c", { partitionKey: ["t1"] }).fetchAll();
      a.deepEq(prefix.sort((x, y) => x - y), [10, 11, 12, 13, 14], "query with a prefix key");
      const { resources: ordered } = await container.items
        .query("SELECT VALUE c.n FROM c ORDER BY c.n DESC", { partitionKey: ["t0"], maxItemCount: 2 })
        .fetchAll();
      a.deepEq(ordered, [4, 3, 2, 1, 0], "ORDER BY within a prefix");

      // A filter on the first level narrows the plan to the prefix's key interval, and the gateway
      // reads only the documents below it.
      const database = container.database;
      const planned = await rawQuery(ctx, database, container, "SELECT * FROM c WHERE c.tenant = 't2' ORDER BY c.n", {
        "x-ms-cosmos-is-query-plan-request": "True",
      });
      a.eq(planned.status, 200, `plan: ${planned.text}`);
      a.eq(planned.json.queryRanges.length, 1, "one query range");
      const [range] = planned.json.queryRanges;
      a.eq(range.max, `${range.min}FF`, "the range below the first level's key");
      a.ok(range.isMinInclusive && !range.isMaxInclusive, "[min, max)");
      const direct = await rawQuery(ctx, database, container, "SELECT VALUE c.n FROM c WHERE c.tenant = 't2'");
      a.eq(direct.status, 200, `direct: ${direct.text}`);
      a.deepEq(direct.json.Documents.sort((x, y) => x - y), [20, 21, 22, 23, 24], "rows of the prefix");
      a.eq(a.header(direct.headers, "x-cosmolite-narrowed-by-partition-key"), "true", "narrowed");
      a.eq(a.header(direct.headers, "x-cosmolite-documents-scanned"), "5", "scans the prefix's documents only");
      a.status(await container.item("t0u0", ["t0", "u0"]).delete(), 204, "delete with the full key");
    },
  },
];
