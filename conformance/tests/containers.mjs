// Containers: partition key definitions, service defaults, replace, list, delete, errors.
import * as a from "../lib/assert.mjs";
import { seg } from "../lib/raw.mjs";

function checkContainerBody(body, id, what) {
  a.eq(body.id, id, `${what}: id`);
  for (const field of ["_rid", "_self", "_etag", "_docs", "_sprocs", "_triggers", "_udfs", "_conflicts"]) {
    a.isType(body[field], "string", `${what}: ${field}`);
  }
  a.ok(Number.isInteger(body._ts), `${what}: _ts should be an integer, got ${body._ts}`);
  a.match(body._self, /^dbs\/.+\/colls\/.+\/$/, `${what}: _self`);
}

function checkDefaultIndexingPolicy(policy, what) {
  a.isType(policy, "object", `${what}: indexingPolicy`);
  a.eq(policy.indexingMode, "consistent", `${what}: indexingPolicy.indexingMode`);
  a.eq(policy.automatic, true, `${what}: indexingPolicy.automatic`);
  a.isType(policy.includedPaths, "array", `${what}: indexingPolicy.includedPaths`);
  a.ok(policy.includedPaths.some((p) => p.path === "/*"), `${what}: includedPaths lacks /*: ${JSON.stringify(policy.includedPaths)}`);
  a.isType(policy.excludedPaths, "array", `${what}: indexingPolicy.excludedPaths`);
  a.ok(
    policy.excludedPaths.some((p) => p.path === '/"_etag"/?'),
    `${what}: excludedPaths lacks /"_etag"/?: ${JSON.stringify(policy.excludedPaths)}`,
  );
}

export default [
  {
    name: "an API version before 2018-12-31 may create a legacy non-partitioned container: one logical partition, no key needed",
    async run(ctx) {
      const database = await ctx.database();
      const colls = `/dbs/${seg(database.id)}/colls`;
      const legacy = { "x-ms-version": "2018-06-18" };
      const refused = await ctx.raw({ method: "POST", path: colls, body: { id: "modern" } });
      a.rawError(refused, 400, "no partition key with a current API version");

      const created = await ctx.raw({ method: "POST", path: colls, headers: legacy, body: { id: "old" } });
      a.eq(created.status, 201, `legacy create: ${created.text}`);
      a.deepEq(created.json.partitionKey, { paths: ["/_partitionKey"], kind: "Hash", systemKey: true }, "partitionKey");
      const docs = `${colls}/old/docs`;
      for (const id of ["a", "b"]) {
        const written = await ctx.raw({ method: "POST", path: docs, headers: legacy, body: { id, v: id } });
        a.eq(written.status, 201, `create without a partition key header: ${written.text}`);
      }
      const read = await ctx.raw({ path: `${docs}/a`, headers: legacy });
      a.eq(read.status, 200, `read without a key: ${read.text}`);
      const none = await ctx.raw({ path: `${docs}/b`, headers: { "x-ms-documentdb-partitionkey": "[]" } });
      a.eq(none.status, 200, `read with PartitionKey.None ([]): ${none.text}`);
      const query = await ctx.raw({
        method: "POST", path: docs, body: { query: "SELECT VALUE c.id FROM c ORDER BY c.id", parameters: [] },
        headers: { ...legacy, "content-type": "application/query+json", "x-ms-documentdb-isquery": "True" },
      });
      a.eq(query.status, 200, `a query without cross-partition consent: ${query.text}`);
      a.deepEq(query.json.Documents, ["a", "b"], "rows");
    },
  },
  {
    name: "create with /pk answers 201 with a Hash partition key and default indexing policy",
    async run(ctx) {
      const database = await ctx.database();
      const id = ctx.uid("c");
      const response = await database.containers.create({ id, partitionKey: { paths: ["/pk"] } });
      a.status(response, 201, "create container");
      a.charge(response.headers, "create container");
      checkContainerBody(response.resource, id, "create container");
      a.deepEq(response.resource.partitionKey.paths, ["/pk"], "partitionKey.paths");
      a.eq(response.resource.partitionKey.kind, "Hash", "partitionKey.kind");
      checkDefaultIndexingPolicy(response.resource.indexingPolicy, "create container");

      const read = await database.container(id).read();
      a.status(read, 200, "read container");
      a.charge(read.headers, "read container");
      checkContainerBody(read.resource, id, "read container");
      a.eq(read.resource._rid, response.resource._rid, "_rid");
      a.deepEq(read.resource.partitionKey.paths, ["/pk"], "read partitionKey.paths");
      checkDefaultIndexingPolicy(read.resource.indexingPolicy, "read container");
    },
  },
  {
    name: "create with a hierarchical (MultiHash v2) partition key",
    async run(ctx) {
      const database = await ctx.database();
      const id = ctx.uid("c");
      const partitionKey = { paths: ["/tenant", "/user"], kind: "MultiHash", version: 2 };
      const response = await database.containers.create({ id, partitionKey });
      a.status(response, 201, "create MultiHash container");
      const read = await database.container(id).read();
      a.deepEq(read.resource.partitionKey.paths, ["/tenant", "/user"], "partitionKey.paths");
      a.eq(read.resource.partitionKey.kind, "MultiHash", "partitionKey.kind");
      a.eq(read.resource.partitionKey.version, 2, "partitionKey.version");
    },
  },
  {
    name: "defaultTtl and uniqueKeyPolicy are stored",
    async run(ctx) {
      const database = await ctx.database();
      const id = ctx.uid("c");
      const uniqueKeyPolicy = { uniqueKeys: [{ paths: ["/email"] }, { paths: ["/first", "/last"] }] };
      await database.containers.create({ id, partitionKey: { paths: ["/pk"] }, defaultTtl: 3600, uniqueKeyPolicy });
      const { resource } = await database.container(id).read();
      a.eq(resource.defaultTtl, 3600, "defaultTtl");
      a.deepEq(
        resource.uniqueKeyPolicy?.uniqueKeys?.map((k) => k.paths),
        [["/email"], ["/first", "/last"]],
        "uniqueKeyPolicy.uniqueKeys[].paths",
      );
    },
  },
  {
    name: "containers.readAll lists them; raw feed has DocumentCollections and _count",
    async run(ctx) {
      const database = await ctx.database();
      const ids = [ctx.uid("c"), ctx.uid("c")];
      for (const id of ids) await database.containers.create({ id, partitionKey: { paths: ["/pk"] } });
      const { resources } = await database.containers.readAll().fetchAll();
      a.deepEq(resources.map((c) => c.id).sort(), [...ids].sort(), "listed container ids");

      const raw = await ctx.raw({ method: "GET", path: `/dbs/${seg(database.id)}/colls` });
      a.status(raw, 200, "GET colls feed");
      a.isType(raw.json.DocumentCollections, "array", "DocumentCollections");
      a.eq(raw.json._count, 2, "_count");
      a.eq(Number(a.header(raw.headers, "x-ms-item-count")), 2, "x-ms-item-count");
    },
  },
  {
    name: "replace changes indexingPolicy and defaultTtl (200, reflected on read)",
    async run(ctx) {
      const database = await ctx.database();
      const id = ctx.uid("c");
      const created = await database.containers.create({ id, partitionKey: { paths: ["/pk"] } });
      const indexingPolicy = {
        indexingMode: "consistent",
        automatic: true,
        includedPaths: [{ path: "/*" }],
        excludedPaths: [{ path: "/secret/?" }, { path: '/"_etag"/?' }],
      };
      const replaced = await database.container(id).replace({
        id,
        partitionKey: created.resource.partitionKey,
        indexingPolicy,
        defaultTtl: 120,
      });
      a.status(replaced, 200, "replace container");
      a.charge(replaced.headers, "replace container");
      a.notEq(replaced.resource._etag, created.resource._etag, "_etag after replace");
      a.eq(replaced.resource._rid, created.resource._rid, "_rid after replace");
      const { resource } = await database.container(id).read();
      a.eq(resource.defaultTtl, 120, "defaultTtl after replace");
      a.ok(
        resource.indexingPolicy.excludedPaths.some((p) => p.path === "/secret/?"),
        `excludedPaths after replace: ${JSON.stringify(resource.indexingPolicy.excludedPaths)}`,
      );
    },
  },
  {
    name: "replace with a different partition key answers 400",
    async run(ctx) {
      const { container } = await ctx.container();
      await a.rejects(
        () => container.replace({ id: container.id, partitionKey: { paths: ["/other"], kind: "Hash" } }),
        400,
        "replace with another partition key",
      );
      const { resource } = await container.read();
      a.deepEq(resource.partitionKey.paths, ["/pk"], "partition key unchanged");
    },
  },
  {
    name: "delete answers 204, then read answers 404",
    async run(ctx) {
      const { container } = await ctx.container();
      const deleted = await container.delete();
      a.status(deleted, 204, "delete container");
      a.charge(deleted.headers, "delete container");
      await a.rejects(() => container.read(), 404, "read deleted container");
      await a.rejects(() => container.delete(), 404, "delete deleted container");
    },
  },
  {
    name: "create in a missing database answers 404 with substatus 1003",
    async run(ctx) {
      await a.rejects(
        () => ctx.client.database(ctx.uid("missing")).containers.create({ id: "c", partitionKey: { paths: ["/pk"] } }),
        404,
        "container in a missing database",
        { substatus: 1003 },
      );
    },
  },
  {
    name: "create of an existing id answers 409",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await a.rejects(
        () => database.containers.create({ id: container.id, partitionKey: { paths: ["/pk"] } }),
        409,
        "duplicate container",
      );
    },
  },
  {
    name: "createIfNotExists twice: 201 then 200",
    async run(ctx) {
      const database = await ctx.database();
      const id = ctx.uid("c");
      const first = await database.containers.createIfNotExists({ id, partitionKey: { paths: ["/pk"] } });
      a.status(first, 201, "first createIfNotExists");
      const second = await database.containers.createIfNotExists({ id, partitionKey: { paths: ["/pk"] } });
      a.status(second, 200, "second createIfNotExists");
      a.eq(second.resource._rid, first.resource._rid, "_rid");
    },
  },
  {
    name: "partition key ranges feed covers the whole key space",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const response = await ctx.raw({ method: "GET", path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/pkranges` });
      a.status(response, 200, "GET pkranges");
      const ranges = response.json.PartitionKeyRanges;
      a.isType(ranges, "array", "PartitionKeyRanges");
      a.ok(ranges.length >= 1, "no partition key range");
      a.eq(response.json._count, ranges.length, "_count");
      a.ok(ranges.some((r) => r.minInclusive === ""), "no range starts at ''");
      a.ok(ranges.some((r) => r.maxExclusive === "FF"), "no range ends at 'FF'");
    },
  },
  {
    name: "invalid definitions answer 400",
    async run(ctx) {
      const database = await ctx.database();
      const cases = [
        ["partition key path without a leading slash", { partitionKey: { paths: ["pk"] } }],
        ["more than 3 hierarchical paths", { partitionKey: { paths: ["/a", "/b", "/c", "/d"], kind: "MultiHash", version: 2 } }],
        ["defaultTtl 0", { partitionKey: { paths: ["/pk"] }, defaultTtl: 0 }],
        ["defaultTtl -2", { partitionKey: { paths: ["/pk"] }, defaultTtl: -2 }],
        ["id of 256 characters", { id: "c".repeat(256), partitionKey: { paths: ["/pk"] } }],
        ["id with '/'", { id: "a/b", partitionKey: { paths: ["/pk"] } }],
      ];
      for (const [what, definition] of cases) {
        const body = { id: ctx.uid("c"), ...definition };
        const response = await ctx.raw({ method: "POST", path: `/dbs/${seg(database.id)}/colls`, body });
        a.rawError(response, 400, what);
      }
    },
  },
  {
    name: "delete removes its items (recreate same id: empty)",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await container.items.create({ id: "i", pk: "p" });
      await container.delete();
      const { container: again } = await database.containers.create({ id: container.id, partitionKey: { paths: ["/pk"] } });
      a.status(await again.item("i", "p").read(), 404, "item of the deleted container");
      const feed = await ctx.raw({ method: "GET", path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs` });
      a.eq(feed.json?._count, 0, "read feed of the recreated container");
    },
  },
  {
    name: "resources are addressable by _rid (rid-based links)",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const item = (await container.items.create({ id: "r", pk: "p" })).resource;
      const dbRid = (await database.read()).resource._rid;
      const collRid = (await container.read()).resource._rid;
      const db = await ctx.raw({ method: "GET", path: `/dbs/${dbRid}/`, resourceType: "dbs", resourceLink: dbRid.toLowerCase() });
      a.status(db, 200, "GET database by rid");
      a.eq(db.json.id, database.id, "database id");
      const coll = await ctx.raw({
        method: "GET", path: `/dbs/${dbRid}/colls/${collRid}/`, resourceType: "colls", resourceLink: collRid.toLowerCase(),
      });
      a.status(coll, 200, "GET container by rid");
      a.eq(coll.json.id, container.id, "container id");
      const doc = await ctx.raw({
        method: "GET",
        path: `/dbs/${dbRid}/colls/${collRid}/docs/${item._rid}/`,
        resourceType: "docs",
        resourceLink: item._rid.toLowerCase(),
        headers: { "x-ms-documentdb-partitionkey": '["p"]' },
      });
      a.status(doc, 200, "GET item by rid");
      a.eq(doc.json.id, "r", "item id");
      const self = await ctx.raw({
        method: "GET", path: `/${item._self}`, resourceType: "docs", resourceLink: item._rid.toLowerCase(),
        headers: { "x-ms-documentdb-partitionkey": '["p"]' },
      });
      a.status(self, 200, "GET item by _self");
    },
  },
  {
    name: "container feed pages with maxItemCount (x-ms-max-item-count / x-ms-continuation)",
    async run(ctx) {
      const database = await ctx.database();
      const ids = [];
      for (let i = 0; i < 3; i++) {
        ids.push(ctx.uid("c"));
        await database.containers.create({ id: ids[i], partitionKey: { paths: ["/pk"] } });
      }
      const iterator = database.containers.readAll({ maxItemCount: 2 });
      const sizes = [];
      const seen = [];
      for (let page = 1; iterator.hasMoreResults() && page < 10; page++) {
        const { resources } = await iterator.fetchNext();
        sizes.push(resources.length);
        seen.push(...resources.map((c) => c.id));
      }
      a.deepEq(sizes.filter((n) => n > 0), [2, 1], "page sizes with maxItemCount 2");
      a.deepEq(seen.sort(), [...ids].sort(), "containers seen exactly once");
    },
  },
];
