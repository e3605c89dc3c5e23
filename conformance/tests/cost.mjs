// The cost model through the SDK: request charges that follow the indexing policy and the
// consistency level, the composite-index rule for ORDER BY, offers (read, replace, minimums,
// throughput-driven splits, shared database throughput), serverless accounts, quota headers, and
// per-partition throttling (429/3200 with x-ms-retry-after-ms) under --rate-limit.
import * as a from "../lib/assert.mjs";
import { ChangeFeedStartFrom } from "@azure/cosmos";
import { makeClient } from "../lib/context.mjs";
import { rawRequest, seg } from "../lib/raw.mjs";
import { ServerProcess } from "../lib/server.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const charge = (response) => Number(response.headers["x-ms-request-charge"]);

// An item of about 1 KB once stored (with its system properties), with 35 indexable values.
function wideItem(id, pk) {
  const item = { id, pk, name: `name-${id}` };
  for (let i = 0; i < 32; i++) item[`f${i}`] = `v${i}-${"x".repeat(12)}`;
  return item;
}

// A server of the test's own, with extra flags; stopped when the test ends.
async function ownServer(ctx, extraArgs) {
  const server = new ServerProcess({ tls: ctx.tls, extraArgs });
  ctx.defer(() => server.stop());
  await server.start();
  return server;
}

async function ownClient(ctx, server, extra = {}) {
  const client = makeClient(server.endpoint, server.key, extra);
  ctx.defer(() => client.dispose());
  return client;
}

function rawQuery(ctx, database, container, query) {
  return ctx.raw({
    method: "POST",
    path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`,
    body: { query, parameters: [] },
    headers: {
      "content-type": "application/query+json",
      "x-ms-documentdb-isquery": "True",
      "x-ms-documentdb-query-enablecrosspartition": "True",
      "x-ms-max-item-count": -1,
    },
  });
}

// Documents scanned and RU of a filter served by the gateway (no ORDER BY: any range count).
async function scanOf(ctx, database, container, query) {
  const response = await rawQuery(ctx, database, container, query);
  a.eq(response.status, 200, `${query}: ${response.text}`);
  return {
    rows: response.json.Documents,
    scanned: Number(response.headers["x-cosmolite-documents-scanned"]),
    access: response.headers["x-cosmolite-access-path"],
    charge: charge(response),
  };
}

async function readProgress(ctx, database, container) {
  const response = await ctx.raw({ path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}` });
  return Number(response.headers["x-ms-documentdb-collection-index-transformation-progress"]);
}

export default [
  {
    name: "queries use the index: an indexed filter loads only its matches, an excluded path scans and costs more",
    async run(ctx) {
      const { database, container } = await ctx.container({
        indexingPolicy: { excludedPaths: [{ path: "/secret/?" }] },
      });
      for (let i = 0; i < 40; i++) {
        await container.items.create({ id: `d${i}`, pk: `p${i % 5}`, n: i, secret: i, name: `name${i % 10}`, tags: [`t${i}`] });
      }
      const indexed = await scanOf(ctx, database, container, "SELECT VALUE c.id FROM c WHERE c.n = 7");
      const excluded = await scanOf(ctx, database, container, "SELECT VALUE c.id FROM c WHERE c.secret = 7");
      a.deepEq(indexed.rows, ["d7"], "indexed equality");
      a.deepEq(excluded.rows, ["d7"], "excluded path still answers");
      a.eq(indexed.scanned, 1, "the index names one document");
      a.eq(excluded.scanned, 40, "an excluded path scans every document");
      a.eq(indexed.access, "index lookup on /n", "x-cosmolite-access-path: the index");
      a.eq(excluded.access, "scan", "x-cosmolite-access-path: a scan");
      // On 40 small documents a scan costs about what a lookup does: on the service a scan of 7
      // documents (2.35 RU) costs less than a lookup of one (2.83 RU). Past a few hundred the scan
      // costs more (below).
      a.ok(Math.abs(excluded.charge - indexed.charge) < 0.5, `scan ${excluded.charge} RU, index ${indexed.charge} RU`);
      const range = await scanOf(ctx, database, container, "SELECT VALUE c.id FROM c WHERE c.n >= 10 AND c.n < 13");
      a.deepEq(range.rows.sort(), ["d10", "d11", "d12"], "range");
      a.eq(range.scanned, 3, "range reads three");
      const prefix = await scanOf(ctx, database, container, "SELECT VALUE c.id FROM c WHERE STARTSWITH(c.name, 'name3')");
      a.eq(prefix.scanned, 4, "STARTSWITH reads its prefix");
      a.eq(prefix.access, "index lookup on /name", "x-cosmolite-access-path names the index");
      const inList = await scanOf(ctx, database, container, "SELECT VALUE c.id FROM c WHERE c.n IN (1, 2, 'x')");
      a.deepEq(inList.rows.sort(), ["d1", "d2"], "IN");
      const element = await scanOf(ctx, database, container, "SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(c.tags, 't5') AND c.tags[0] = 't5'");
      a.deepEq(element.rows, ["d5"], "array element path");
      // Paging through an index lookup with the SDK.
      const { resources } = await container.items
        .query("SELECT VALUE c.id FROM c WHERE c.n > 30", { maxItemCount: 2 })
        .fetchAll();
      a.deepEq(resources.sort(), Array.from({ length: 9 }, (_, i) => `d${31 + i}`).sort(), "paged index lookup");
      // 400 documents: the scan costs more than the lookup, as 7.07 RU against 2.83 RU on the
      // service's 295 CosmicWorks products (DP-420 / indexing-strategy exercise).
      const more = Array.from({ length: 360 }, (_, k) => 40 + k);
      const results = await container.items.executeBulkOperations(more.map((i) => ({
        operationType: "Create", partitionKey: `p${i % 5}`,
        resourceBody: { id: `d${i}`, pk: `p${i % 5}`, n: i, secret: i, name: `name${i % 10}`, tags: [`t${i}`] },
      })));
      a.ok(results.every((r) => r.response?.statusCode === 201), "360 more documents");
      const indexed400 = await scanOf(ctx, database, container, "SELECT VALUE c.id FROM c WHERE c.n = 7");
      const excluded400 = await scanOf(ctx, database, container, "SELECT VALUE c.id FROM c WHERE c.secret = 7");
      a.eq(excluded400.scanned, 400, "the scan reads every document");
      a.ok(excluded400.charge > indexed400.charge + 1, `scan ${excluded400.charge} RU > index ${indexed400.charge} RU`);
      console.log(`# filter on 40 documents: indexed ${indexed.charge} RU, excluded path ${excluded.charge} RU; ` +
        `on 400: indexed ${indexed400.charge} RU, excluded path ${excluded400.charge} RU`);
    },
  },
  {
    name: "fan-out is charged: a query served in one request pays the minimum of every physical partition it visits",
    async run(ctx) {
      const database = await ctx.database();
      const measure = async (throughput) => {
        const { container } = await database.containers.create({ id: ctx.uid("c"), partitionKey: { paths: ["/pk"] }, throughput });
        for (let i = 0; i < 8; i++) await container.items.create({ id: `d${i}`, pk: `p${i}`, n: i });
        const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
        const scan = await scanOf(ctx, database, container, "SELECT VALUE c.id FROM c WHERE c.n = 3");
        a.deepEq(scan.rows, ["d3"], `the match on ${ranges.length} partitions`);
        return { partitions: ranges.length, charge: scan.charge };
      };
      const few = await measure(40000);
      const many = await measure(400000);
      a.ok(many.partitions >= 10 * few.partitions, `partitions: ${few.partitions} and ${many.partitions}`);
      const expected = 2.3 * (many.partitions - few.partitions);
      a.ok(Math.abs(many.charge - few.charge - expected) < 0.05,
        `${few.charge} RU on ${few.partitions} partitions, ${many.charge} RU on ${many.partitions}: 2.3 RU more per partition`);
    },
  },
  {
    name: "ORDER BY reads the index in order: a TOP or a page loads only what it returns",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const docs = Array.from({ length: 60 }, (_, i) => ({ id: `d${i}`, pk: "p", n: (i * 37) % 60, s: `s${i % 7}` }));
      for (const doc of docs) await container.items.create(doc);
      const byN = [...docs].sort((x, y) => x.n - y.n).map((d) => d.id);
      const single = (query, headers = {}) => ctx.raw({
        method: "POST",
        path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`,
        body: { query, parameters: [] },
        headers: {
          "content-type": "application/query+json",
          "x-ms-documentdb-isquery": "True",
          "x-ms-documentdb-partitionkey": '["p"]',
          ...headers,
        },
      });
      const top = await single("SELECT TOP 5 VALUE c.id FROM c ORDER BY c.n");
      a.deepEq(top.json.Documents, byN.slice(0, 5), "TOP 5 ascending");
      a.eq(top.headers["x-cosmolite-access-path"], "index order on /n", "x-cosmolite-access-path: index order");
      a.ok(Number(top.headers["x-cosmolite-documents-scanned"]) <= 6, `TOP 5 scanned ${top.headers["x-cosmolite-documents-scanned"]}`);
      const desc = await single("SELECT TOP 3 VALUE c.id FROM c ORDER BY c.n DESC");
      a.deepEq(desc.json.Documents, byN.slice(-3).reverse(), "TOP 3 descending");
      const bounded = await single("SELECT VALUE c.id FROM c WHERE c.n >= 50 ORDER BY c.n", { "x-ms-max-item-count": 4 });
      a.deepEq(bounded.json.Documents, byN.slice(50, 54), "a filter on the ORDER BY path bounds the scan");
      a.ok(Number(bounded.headers["x-cosmolite-documents-scanned"]) <= 5, "bounded scan");
      // Every page of the SDK's run, across the physical partitions, in order.
      const { resources } = await container.items.query("SELECT VALUE c.id FROM c ORDER BY c.n", { maxItemCount: 7 }).fetchAll();
      a.deepEq(resources, byN, "paged ORDER BY");
      // A document without n sorts first: the index cannot see it, so the query sorts everything.
      await container.items.create({ id: "none", pk: "p" });
      const withUndefined = await single("SELECT TOP 2 VALUE c.id FROM c ORDER BY c.n");
      a.deepEq(withUndefined.json.Documents, ["none", byN[0]], "undefined first");
      a.eq(Number(withUndefined.headers["x-cosmolite-documents-scanned"]), 61, "falls back to a full sort");
    },
  },
  {
    name: "composite ORDER BY reads the composite index in order, forwards and inverted",
    async run(ctx) {
      const { database, container } = await ctx.container({
        indexingPolicy: { compositeIndexes: [[{ path: "/cat" }, { path: "/n", order: "descending" }]] },
      });
      const docs = Array.from({ length: 60 }, (_, i) => ({ id: `d${i}`, pk: `p${i % 5}`, cat: `c${(i * 7) % 4}`, n: (i * 37) % 60 }));
      for (const doc of docs) await container.items.create(doc);
      const order = [...docs].sort((x, y) => (x.cat < y.cat ? -1 : x.cat > y.cat ? 1 : y.n - x.n)).map((d) => d.id);
      // Raw requests name one logical partition (p0), so that the gateway answers a TOP itself
      // whatever the number of physical partitions.
      const inP0 = (id) => docs.find((d) => d.id === id).pk === "p0";
      const p0Order = order.filter(inP0);
      const onePartition = (query, headers = {}) => ctx.raw({
        method: "POST",
        path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`,
        body: { query, parameters: [] },
        headers: {
          "content-type": "application/query+json",
          "x-ms-documentdb-isquery": "True",
          "x-ms-documentdb-partitionkey": '["p0"]',
          ...headers,
        },
      });
      const top = await onePartition("SELECT TOP 5 VALUE c.id FROM c ORDER BY c.cat, c.n DESC");
      a.deepEq(top.json.Documents, p0Order.slice(0, 5), "TOP 5 in the index's directions");
      a.ok(Number(top.headers["x-cosmolite-documents-scanned"]) <= 6, `TOP 5 scanned ${top.headers["x-cosmolite-documents-scanned"]}`);
      const inverted = await onePartition("SELECT TOP 4 VALUE c.id FROM c ORDER BY c.cat DESC, c.n");
      a.deepEq(inverted.json.Documents, p0Order.slice(-4).reverse(), "TOP 4 with every direction inverted");
      a.ok(Number(inverted.headers["x-cosmolite-documents-scanned"]) <= 5, "inverted scan stops early");
      const filtered = await onePartition("SELECT TOP 3 VALUE c.id FROM c WHERE c.n < 20 ORDER BY c.cat, c.n DESC");
      a.deepEq(filtered.json.Documents, p0Order.filter((id) => docs.find((d) => d.id === id).n < 20).slice(0, 3), "filtered");
      // The SDK's paged run agrees, page after page.
      const { resources } = await container.items
        .query("SELECT VALUE c.id FROM c ORDER BY c.cat, c.n DESC", { maxItemCount: 7 })
        .fetchAll();
      a.deepEq(resources, order, "paged composite ORDER BY");
      // A document without n has no composite entry: the query sorts everything (undefined is the
      // lowest n, so it comes last among c0 when n is descending, first when ascending).
      await container.items.create({ id: "none", pk: "p0", cat: "c0" });
      const withUndefined = await onePartition("SELECT TOP 2 VALUE c.id FROM c ORDER BY c.cat, c.n DESC");
      a.deepEq(withUndefined.json.Documents, p0Order.slice(0, 2), "undefined n does not lead");
      a.eq(Number(withUndefined.headers["x-cosmolite-documents-scanned"]), 13, "falls back to a full sort of p0");
      const c0 = p0Order.filter((id) => docs.find((d) => d.id === id).cat === "c0");
      const lastOfC0 = await onePartition("SELECT VALUE c.id FROM c WHERE c.cat = 'c0' ORDER BY c.cat DESC, c.n");
      a.deepEq(lastOfC0.json.Documents, ["none", ...c0.reverse()], "undefined n first when n ascends");
    },
  },
  {
    name: "replacing the indexing policy rebuilds the index in the background and reports progress",
    async run(ctx) {
      const { database, container } = await ctx.container();
      for (let i = 0; i < 30; i++) await container.items.create({ id: `d${i}`, pk: `p${i % 3}`, n: i });
      a.eq(await readProgress(ctx, database, container), 100, "progress with a current index");
      const { resource: definition } = await container.read();
      await container.replace({ ...definition, indexingPolicy: { excludedPaths: [{ path: "/n/?" }] } });
      let progress = await readProgress(ctx, database, container);
      a.ok(progress >= 0 && progress <= 100, `progress ${progress}`);
      for (let i = 0; i < 100 && progress < 100; i++) {
        // Queries stay correct while the index is rebuilt.
        a.deepEq((await scanOf(ctx, database, container, "SELECT VALUE c.id FROM c WHERE c.n = 3")).rows, ["d3"], "during rebuild");
        await sleep(100);
        progress = await readProgress(ctx, database, container);
      }
      a.eq(progress, 100, "the rebuild finishes");
      a.eq((await scanOf(ctx, database, container, "SELECT VALUE c.id FROM c WHERE c.n = 3")).scanned, 30, "n now excluded: scan");
      await container.replace({ ...definition, indexingPolicy: {} });
      for (let i = 0; i < 100 && (await readProgress(ctx, database, container)) < 100; i++) await sleep(100);
      const after = await scanOf(ctx, database, container, "SELECT VALUE c.id FROM c WHERE c.n = 3");
      a.deepEq(after.rows, ["d3"], "after the second rebuild");
      a.eq(after.scanned, 1, "n indexed again");
    },
  },
  {
    name: "write RU falls when the indexing policy is narrowed; reads stay at 1 RU",
    async run(ctx) {
      const { container: wide } = await ctx.container();
      const { container: narrow } = await ctx.container({
        indexingPolicy: { includedPaths: [{ path: "/name/?" }], excludedPaths: [{ path: "/*" }] },
      });
      const item = wideItem("w1", "p");
      a.ok(JSON.stringify(item).length > 750 && JSON.stringify(item).length < 900, "the item is about 1 KB stored");
      const created = await wide.items.create(item);
      const narrowCreated = await narrow.items.create(item);
      const defaultRu = created.requestCharge;
      const narrowRu = narrowCreated.requestCharge;
      a.ok(defaultRu >= 5 && defaultRu <= 7, `1 KB create with the default policy: ${defaultRu} RU`);
      a.ok(narrowRu < defaultRu * 0.75, `narrowed policy should cut write RU markedly: ${narrowRu} vs ${defaultRu}`);
      console.log(`# write RU of a 1 KB item with 35 values: default policy ${defaultRu}, narrowed ${narrowRu} ` +
        `(-${Math.round((1 - narrowRu / defaultRu) * 100)}%)`);
      // The same request on the same data costs the same.
      a.eq((await wide.items.create(wideItem("w2", "p"))).requestCharge, defaultRu, "same write, same charge");
      a.eq((await wide.item("w1", "p").read()).requestCharge, 1, "1 KB point read");
      const replaced = await wide.item("w1", "p").replace({ ...item, name: "renamed" });
      a.ok(replaced.requestCharge > defaultRu, `a replace costs more than a create: ${replaced.requestCharge}`);
      const deleted = await wide.item("w2", "p").delete();
      a.ok(deleted.requestCharge >= 5, `a delete costs about a write: ${deleted.requestCharge}`);
      const big = { id: "big", pk: "p", blob: "y".repeat(100 * 1024) };
      a.ok((await narrow.items.create(big)).requestCharge > 40, "a 100 KB write costs about 50 RU");
      const bigRead = (await narrow.item("big", "p").read()).requestCharge;
      a.ok(bigRead >= 9 && bigRead <= 11, `a 100 KB read costs about 10 RU: ${bigRead}`);
    },
  },
  {
    name: "ORDER BY needs a composite index for several properties and a range index for one",
    async run(ctx) {
      const { container } = await ctx.container({
        indexingPolicy: {
          excludedPaths: [{ path: "/secret/?" }],
          compositeIndexes: [[{ path: "/a", order: "ascending" }, { path: "/b", order: "ascending" }]],
        },
      });
      for (let i = 0; i < 4; i++) await container.items.create({ id: `i${i}`, pk: "p", a: i % 2, b: i, secret: 3 - i });
      const run = (query) => container.items.query(query).fetchAll();
      a.deepEq((await run("SELECT VALUE c.id FROM c ORDER BY c.a, c.b")).resources, ["i0", "i2", "i1", "i3"], "composite ASC");
      a.deepEq((await run("SELECT VALUE c.id FROM c ORDER BY c.a DESC, c.b DESC")).resources, ["i3", "i1", "i2", "i0"],
        "composite all inverted");
      await a.rejects(run("SELECT VALUE c.id FROM c ORDER BY c.a, c.b DESC"), 400, "mixed directions without an index");
      await a.rejects(run("SELECT VALUE c.id FROM c ORDER BY c.b, c.a"), 400, "other order without an index");
      await a.rejects(run("SELECT VALUE c.id FROM c ORDER BY c.secret"), 400, "ORDER BY an excluded path");
      // A filter on an excluded path still works: the documents are scanned.
      a.deepEq((await run("SELECT VALUE c.id FROM c WHERE c.secret = 1")).resources, ["i2"], "filter on an excluded path");
    },
  },
  {
    name: "invalid indexing policies are refused with 400",
    async run(ctx) {
      const database = await ctx.database();
      for (const indexingPolicy of [
        { indexingMode: "sometimes" },
        { includedPaths: [{ path: "/name" }] },
        { includedPaths: [{ path: "/name/?" }] },
        { compositeIndexes: [[{ path: "/a" }]] },
        { spatialIndexes: [{ path: "/loc/*", types: ["Circle"] }] },
      ]) {
        await a.rejects(
          database.containers.create({ id: ctx.uid("bad"), partitionKey: { paths: ["/pk"] }, indexingPolicy }),
          400,
          `indexingPolicy ${JSON.stringify(indexingPolicy)}`,
        );
      }
      const { resource } = await database.containers.create({
        id: ctx.uid("ok"),
        partitionKey: { paths: ["/pk"] },
        indexingPolicy: { compositeIndexes: [[{ path: "/a" }, { path: "/b", order: "descending" }]] },
      });
      a.deepEq(resource.indexingPolicy.includedPaths, [{ path: "/*" }], "defaults filled in");
      a.eq(resource.indexingPolicy.compositeIndexes.length, 1, "composite index kept");
    },
  },
  {
    name: "offers: readOffer, replace, the minimums, autoscale and shared database throughput",
    async run(ctx) {
      const database = await ctx.database();
      const { container } = await database.containers.create({ id: ctx.uid("c"), partitionKey: { paths: ["/pk"] } });
      const { resource: offer, offer: handle } = await container.readOffer();
      a.ok(offer, "a container without throughput has an offer");
      a.eq(offer.content.offerThroughput, 400, "default throughput");
      a.eq(offer.offerVersion, "V2", "offerVersion");
      a.eq(offer.offerResourceId, (await container.read()).resource._rid, "offerResourceId");
      a.eq(offer.id, offer._rid, "offer id is its rid");

      const replaced = await handle.replace({ ...offer, content: { ...offer.content, offerThroughput: 1000 } });
      a.eq(replaced.resource.content.offerThroughput, 1000, "replace answers the new throughput");
      a.eq(replaced.headers["x-ms-offer-replace-pending"], "false", "nothing pending");
      a.eq(replaced.headers["x-ms-cosmos-min-throughput"], "400", "minimum throughput");
      a.eq((await container.readOffer()).resource.content.offerThroughput, 1000, "read after replace");
      await a.rejects(handle.replace({ ...offer, content: { ...offer.content, offerThroughput: 300 } }), 400,
        "below the 400 RU/s minimum");
      await a.rejects(handle.replace({ ...offer, content: { ...offer.content, offerThroughput: 1050 } }), 400,
        "not a multiple of 100");

      // Growing past 10,000 RU/s per physical partition splits the ranges.
      const rangesBefore = (await container.readPartitionKeyRanges().fetchAll()).resources.length;
      const current = (await container.readOffer()).resource;
      await handle.replace({ ...current, content: { ...current.content, offerThroughput: 10000 * rangesBefore + 5000 } });
      const rangesAfter = (await container.readPartitionKeyRanges().fetchAll()).resources.filter((r) => r.status !== "splitting");
      a.ok(rangesAfter.length >= rangesBefore + 1, `ranges after scaling up: ${rangesBefore} -> ${rangesAfter.length}`);

      const { container: autoscale } = await database.containers.create({
        id: ctx.uid("auto"),
        partitionKey: { paths: ["/pk"] },
        maxThroughput: 4000,
      });
      const auto = (await autoscale.readOffer()).resource;
      a.eq(auto.content.offerAutopilotSettings.maxThroughput, 4000, "autoscale maximum");
      await a.rejects(
        database.containers.create({ id: ctx.uid("low"), partitionKey: { paths: ["/pk"] }, throughput: 100 }),
        400,
        "container created below the minimum",
      );

      const { database: shared } = await ctx.client.databases.create({ id: ctx.uid("shared"), throughput: 800 });
      ctx.defer(() => shared.delete());
      a.eq((await shared.readOffer()).resource.content.offerThroughput, 800, "database offer");
      const { container: inShared } = await shared.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
      a.eq((await inShared.readOffer()).resource, undefined, "a container sharing its database's throughput has no offer");

      const { resources: offers } = await ctx.client.offers.readAll().fetchAll();
      a.ok(offers.some((o) => o.id === offer.id) && offers.some((o) => o.offerResourceId === auto.offerResourceId),
        "the offers feed lists them");
    },
  },
  {
    name: "quota headers on a container read with x-ms-documentdb-populatequotainfo",
    async run(ctx) {
      const { database, container } = await ctx.container();
      for (let i = 0; i < 3; i++) await container.items.create({ id: `q${i}`, pk: `p${i}`, blob: "z".repeat(2000) });
      const response = await ctx.raw({
        path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}`,
        headers: { "x-ms-documentdb-populatequotainfo": "true" },
      });
      a.eq(response.status, 200, "read");
      a.match(response.headers["x-ms-resource-quota"] ?? "", /documentSize=\d+;.*collectionSize=-?\d+;/, "quota");
      a.match(response.headers["x-ms-resource-usage"] ?? "", /documentsCount=3;/, "usage counts the documents");
      const plain = await ctx.raw({ path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}` });
      a.eq(plain.headers["x-ms-resource-quota"], undefined, "no quota without the header");
    },
  },
  {
    name: "Strong consistency reads cost twice as much; a request may only relax the account's level",
    requires: ["managed"],
    async run(ctx) {
      const strong = await ownServer(ctx, ["--consistency", "Strong"]);
      const client = await ownClient(ctx, strong);
      const { database } = await client.databases.create({ id: "strong" });
      const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
      await container.items.create({ id: "s", pk: "p", v: 1 });
      a.eq((await container.item("s", "p").read()).requestCharge, 2, "Strong read of a small item");
      a.eq((await container.item("s", "p").read({ consistencyLevel: "Eventual" })).requestCharge, 1, "relaxed to Eventual");
      const strongQuery = await container.items.query("SELECT * FROM c", { partitionKey: "p" }).fetchAll();
      const eventualQuery = await container.items
        .query("SELECT * FROM c", { partitionKey: "p", consistencyLevel: "Eventual" })
        .fetchAll();
      a.ok(Math.abs(strongQuery.requestCharge - 2 * eventualQuery.requestCharge) < 0.02,
        `Strong query ${strongQuery.requestCharge} = 2 x ${eventualQuery.requestCharge}`);

      const session = (await ctx.container()).container;
      await session.items.create({ id: "s", pk: "p" });
      await a.rejects(session.item("s", "p").read({ consistencyLevel: "Strong" }), 400, "stronger than the account");
    },
  },
  {
    name: "serverless: no throughput on create, and offers answer 400",
    requires: ["managed"],
    async run(ctx) {
      const serverless = await ownServer(ctx, ["--serverless"]);
      const client = await ownClient(ctx, serverless);
      const { database } = await client.databases.create({ id: "sl" });
      await a.rejects(database.containers.create({ id: "t", partitionKey: { paths: ["/pk"] }, throughput: 400 }), 400,
        "throughput on a serverless account");
      const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
      await a.rejects(container.readOffer(), 400, "offers on a serverless account");
      a.ok((await container.items.create({ id: "x", pk: "p" })).requestCharge > 0, "writes are still charged");
    },
  },
  {
    name: "--rate-limit: a hot partition gets 429/3200 with x-ms-retry-after-ms while a cold one does not; the SDK recovers",
    requires: ["managed"],
    async run(ctx) {
      const server = await ownServer(ctx, ["--rate-limit", "--min-physical-partitions", "4"]);
      const patient = await ownClient(ctx, server);
      const impatient = await ownClient(ctx, server, { connectionPolicy: { retryOptions: { maxRetryAttemptCount: 0 } } });
      const { database } = await patient.databases.create({ id: "hot" });
      // 400 RU/s over 4 physical partitions: 100 RU/s each.
      await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] }, throughput: 400 });
      const container = impatient.database("hot").container("c");
      const keys = Array.from({ length: 12 }, (_, i) => `cold-${i}`);
      for (const key of keys) await container.items.create({ id: "seed", pk: key });
      await sleep(1100);

      let throttled = null;
      let accepted = 0;
      const started = Date.now();
      for (let i = 0; i < 200 && !throttled; i++) {
        try {
          await container.items.create(wideItem(`h${i}`, "hot"));
          accepted += 1;
        } catch (error) {
          if (error.code !== 429) throw error;
          throttled = { error, id: `h${i}` };
        }
      }
      a.ok(throttled, `the hot partition was never throttled after ${accepted} writes`);
      // The budget refills while the loop runs: on a loaded machine (slow writes) more get in.
      const seconds = (Date.now() - started) / 1000;
      const most = Math.max(40, Math.ceil((seconds + 1) * 20));
      a.ok(accepted >= 5 && accepted <= most,
        `about 100 RU/s of ~7 RU writes were accepted: ${accepted} in ${seconds.toFixed(2)} s (at most ${most})`);
      a.eq(throttled.error.substatus, 3200, "substatus");
      const retryAfter = Number(throttled.error.headers?.["x-ms-retry-after-ms"] ?? throttled.error.retryAfterInMs);
      a.ok(retryAfter > 0 && retryAfter <= 1000, `x-ms-retry-after-ms: ${retryAfter}`);
      a.match(throttled.error.message, /Request rate is large/, "the service's message");

      // Other physical partitions still have their budget.
      let coldAccepted = 0;
      for (const key of keys) {
        try {
          await container.items.create({ id: "second", pk: key });
          coldAccepted += 1;
        } catch (error) {
          if (error.code !== 429) throw error;
        }
      }
      a.ok(coldAccepted >= 6, `cold partitions accepted ${coldAccepted} of ${keys.length} writes while one was hot`);
      console.log(`# 100 RU/s per partition: the hot partition took ${accepted} writes, then 429/3200 with ` +
        `x-ms-retry-after-ms ${retryAfter}; cold partitions took ${coldAccepted} of ${keys.length} writes meanwhile`);

      // A throttled request changed nothing, and the SDK's own retries get through.
      const patientContainer = patient.database("hot").container("c");
      a.status(await patientContainer.item(throttled.id, "hot").read(), 404, "the throttled create left no item");
      for (let i = 0; i < 30; i++) await patientContainer.items.create(wideItem(`r${i}`, "hot"));

      // The partition report shows where the RU went and which partition was throttled.
      const reportResponse = await rawRequest({ endpoint: server.endpoint, key: server.key },
        { path: "/_cosmolite/partitions", auth: "none", headers: { "x-cosmolite-key": server.key } });
      a.status(reportResponse, 200, "GET /_cosmolite/partitions");
      const report = reportResponse.json;
      const entry = report.containers.find((c) => c.container === "dbs/hot/colls/c");
      a.eq(report.rateLimiting, true, "report: rate limiting on");
      a.eq(entry.throughputPerPartition, 100, "report: RU/s per partition");
      const partitions = entry.physicalPartitions;
      a.eq(partitions.length, 4, "report: four physical partitions");
      const hot = partitions.filter((p) => p.throttledRequests > 0);
      a.ok(hot.length >= 1, "report: a throttled partition");
      const hottest = partitions.reduce((x, y) => (y.requestUnits > x.requestUnits ? y : x));
      a.deepEq(hottest.largestLogicalPartitions[0].partitionKey, ["hot"], "report: the hot logical partition leads");
      a.eq(partitions.reduce((n, p) => n + p.documents, 0), 12 + coldAccepted + accepted + 30,
        "report: documents stored");
    },
  },
  {
    name: "the partition and cost reports count every charged request: writes, refusals (409, 404, 412) and change feed pages",
    requires: ["managed"],
    async run(ctx) {
      const server = await ownServer(ctx, []);
      const client = await ownClient(ctx, server);
      const admin = async (method, path) =>
        rawRequest({ endpoint: server.endpoint, key: server.key },
          { method, path, auth: "none", headers: { "x-cosmolite-key": server.key } });
      const { database } = await client.databases.create({ id: "billed" });
      const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
      let charged = 0;
      for (let i = 0; i < 20; i++) charged += (await container.items.create({ id: `i${i}`, pk: "p", n: i })).requestCharge;
      const refusals = [
        () => container.items.create({ id: "i0", pk: "p" }),                                         // 409
        () => container.item("missing", "p").read(),                                                // 404 (the SDK resolves it)
        () => container.item("i1", "p").replace({ id: "i1", pk: "p" }, { accessCondition: { type: "IfMatch", condition: '"stale"' } }), // 412
      ];
      for (const refuse of refusals) {
        try {
          const answer = await refuse();
          a.eq(answer.statusCode, 404, "a read of a missing item answers 404");
          charged += answer.requestCharge;
        } catch (error) {
          a.ok([409, 412].includes(error.code), `refused: ${error.code}`);
          charged += Number(error.headers?.["x-ms-request-charge"]);
        }
      }
      const feed = container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
      for (;;) {
        const page = await feed.readNext();
        // The header: the SDK's page.requestCharge is parseInt of it (4.9.3), 1.32 → 1.
        charged += Number(page.headers["x-ms-request-charge"]);
        if (page.statusCode === 304) break;
      }

      const partitions = (await admin("GET", "/_cosmolite/partitions")).json;
      const entry = partitions.containers.find((c) => c.container === "dbs/billed/colls/c");
      const reported = entry.physicalPartitions.reduce((sum, p) => sum + p.requestUnits, 0);
      a.ok(Math.abs(reported - charged) < 0.05, `the partitions consumed what the client was charged: ${reported} against ${charged}`);
      a.ok(entry.indexEntries >= 20 * 4 && entry.indexBytes > entry.indexEntries * 16, `index size: ${entry.indexEntries} entries, ${entry.indexBytes} bytes`);

      const costs = await admin("GET", "/_cosmolite/cost-report?hourSeconds=1");
      a.status(costs, 200, "GET /_cosmolite/cost-report");
      const cost = costs.json.containers.find((c) => c.container === "dbs/billed/colls/c");
      a.ok(Math.abs(cost.observed.requestUnits - charged) < 0.05, `the cost report counts the same RU: ${cost.observed.requestUnits}`);
      a.eq(cost.provisioned.ruPerSecond >= 400, true, "provisioned: at least 400 RU/s");
      a.ok(Math.abs(cost.serverless.monthlyRequestUnits - cost.observed.averageRuPerSecond * 730 * 3600) <
        cost.serverless.monthlyRequestUnits * 0.001 + 3600, "serverless: the average rate for 730 hours");
      a.eq(costs.json.listPrices.currency, "USD", "list prices in USD");

      const refused = await admin("GET", "/_cosmolite/cost-report?hourSeconds=0");
      a.status(refused, 400, "hourSeconds out of range");
      a.eq(refused.json.code, "BadRequest", "a Cosmos-shaped error");
      a.status(await admin("DELETE", "/_cosmolite/cost-report"), 204, "a new measurement");
      const cleared = (await admin("GET", "/_cosmolite/cost-report")).json.containers.find((c) => c.container === "dbs/billed/colls/c");
      a.eq(cleared.observed.requestUnits, 0, "nothing consumed since");

      const quota = await container.read({ populateQuotaInfo: true });
      const usage = Object.fromEntries(quota.headers["x-ms-resource-usage"].split(";").filter(Boolean).map((kv) => kv.split("=")));
      a.ok(Number(usage.collectionSize) > Number(usage.documentsSize), `collectionSize (documents and index) ${usage.collectionSize} KB > documentsSize ${usage.documentsSize} KB`);
    },
  },
];
