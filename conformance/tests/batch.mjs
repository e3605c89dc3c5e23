// Transactional batch (container.items.batch) and bulk (container.items.executeBulkOperations):
// all or nothing within one logical partition, 424 for the operations a failure took down, and
// bulk operations that apply on their own.
import * as a from "../lib/assert.mjs";
import { seg } from "../lib/raw.mjs";

async function ids(container) {
  const { resources } = await container.items.query("SELECT VALUE c.id FROM c").fetchAll();
  return resources.sort();
}

export default [
  {
    name: "a transactional batch applies every operation and answers each",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "old", pk: "p", v: 1 });
      await container.items.create({ id: "gone", pk: "p" });
      const response = await container.items.batch([
        { operationType: "Create", resourceBody: { id: "a", pk: "p", n: 1 } },
        { operationType: "Upsert", resourceBody: { id: "b", pk: "p", n: 2 } },
        { operationType: "Read", id: "old" },
        { operationType: "Replace", id: "old", resourceBody: { id: "old", pk: "p", v: 2 } },
        { operationType: "Delete", id: "gone" },
        { operationType: "Patch", id: "a", resourceBody: { operations: [{ op: "incr", path: "/n", value: 10 }] } },
      ], "p");
      a.eq(response.code, 200, "batch status");
      a.charge(response.headers, "batch");
      const results = response.result;
      a.deepEq(results.map((r) => r.statusCode), [201, 201, 200, 200, 204, 200], "per-operation statuses");
      for (const r of results) a.ok(r.requestCharge > 0, `each operation has a charge, got ${r.requestCharge}`);
      a.eq(results[0].resourceBody.id, "a", "created body");
      a.match(results[0].eTag, /^".+"$/, "created eTag");
      a.eq(results[2].resourceBody.v, 1, "read sees the state before the replace");
      a.eq(results[5].resourceBody.n, 11, "patch sees the create of the same batch");
      a.deepEq(await ids(container), ["a", "b", "old"], "items after the batch");
      a.eq((await container.item("old", "p").read()).resource.v, 2, "replaced value");
    },
  },
  {
    name: "a batch's writes share one LSN: the change feed never splits them across pages, the all-versions feed logs each",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const docs = `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`;
      const allVersions = { "a-im": "Full-Fidelity Feed", "x-ms-cosmos-changefeed-wire-format-version": "2021-09-15" };
      const started = await ctx.raw({ path: docs, headers: { ...allVersions, "if-none-match": "*" } });
      a.eq(started.status, 304, `all-versions feed from now: ${started.text}`);
      await container.items.create({ id: "before", pk: "p" });
      const response = await container.items.batch([
        { operationType: "Create", resourceBody: { id: "a", pk: "p" } },
        { operationType: "Create", resourceBody: { id: "b", pk: "p" } },
        { operationType: "Delete", id: "before" },
      ], "p");
      a.eq(response.code, 200, "batch status");
      await container.items.create({ id: "after", pk: "p" });

      const page = await ctx.raw({ path: docs, headers: { "a-im": "Incremental feed", "x-ms-max-item-count": "1" } });
      a.eq(page.status, 200, `first page: ${page.text}`);
      a.deepEq(page.json.Documents.map((d) => d.id), ["a", "b"], "the batch's documents come together");
      a.eq(page.json.Documents[0]._lsn, page.json.Documents[1]._lsn, "one LSN");
      const next = await ctx.raw({
        path: docs, headers: { "a-im": "Incremental feed", "x-ms-max-item-count": "1", "if-none-match": a.header(page.headers, "etag") },
      });
      a.deepEq(next.json.Documents.map((d) => d.id), ["after"], "the next page continues after the batch");

      const log = await ctx.raw({ path: docs, headers: { ...allVersions, "if-none-match": a.header(started.headers, "etag") } });
      a.eq(log.status, 200, `all-versions feed: ${log.text}`);
      const entries = log.json.Documents.map((e) => [e.metadata.operationType, e.current.id ?? e.metadata.id, e.metadata.lsn]);
      const batchLsn = page.json.Documents[0]._lsn;
      a.deepEq(entries.slice(1, 4), [["create", "a", batchLsn], ["create", "b", batchLsn], ["delete", "before", batchLsn]],
        "one entry per operation, all at the batch's LSN");
      a.eq(log.json._count, log.json.Documents.length, "_count counts entries");
      a.eq(a.header(log.headers, "x-ms-item-count"), String(log.json.Documents.length), "x-ms-item-count too");
    },
  },
  {
    name: "a failing operation rolls the whole batch back: its status, 424 for the others",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "taken", pk: "p", v: 1 });
      const response = await container.items.batch([
        { operationType: "Create", resourceBody: { id: "new", pk: "p" } },
        { operationType: "Replace", id: "taken", resourceBody: { id: "taken", pk: "p", v: 2 } },
        { operationType: "Create", resourceBody: { id: "taken", pk: "p" } },
        { operationType: "Delete", id: "taken" },
      ], "p");
      a.eq(response.code, 207, "batch status");
      a.deepEq(response.result.map((r) => r.statusCode), [424, 424, 409, 424], "per-operation statuses");
      a.deepEq(await ids(container), ["taken"], "nothing applied");
      a.eq((await container.item("taken", "p").read()).resource.v, 1, "the replace was rolled back");
      const { resources } = await container.items.query({
        query: "SELECT VALUE COUNT(1) FROM c WHERE c.id = @id", parameters: [{ name: "@id", value: "new" }],
      }).fetchAll();
      a.deepEq(resources, [0], "a query does not see the rolled-back create");
    },
  },
  {
    name: "a batch's per-operation preconditions: a stale ifMatch fails the batch with 412",
    async run(ctx) {
      const { container } = await ctx.container();
      const created = (await container.items.create({ id: "x", pk: "p", v: 1 })).resource;
      await container.item("x", "p").replace({ id: "x", pk: "p", v: 2 });
      const response = await container.items.batch([
        { operationType: "Upsert", resourceBody: { id: "y", pk: "p" } },
        { operationType: "Replace", id: "x", resourceBody: { id: "x", pk: "p", v: 3 }, ifMatch: created._etag },
      ], "p");
      a.deepEq(response.result.map((r) => r.statusCode), [424, 412], "per-operation statuses");
      a.deepEq(await ids(container), ["x"], "nothing applied");
    },
  },
  {
    name: "a bulk request for a physical partition that has since split answers 410/1002; for a current one it applies",
    requires: ["managed"],
    async run(ctx) {
      const { database, container } = await ctx.container();
      const containerPath = `/dbs/${seg(database.id)}/colls/${seg(container.id)}`;
      const bulk = (rangeId, id) => ctx.raw({
        method: "POST",
        path: `${containerPath}/docs`,
        headers: {
          "x-ms-cosmos-is-batch-request": "True", "x-ms-cosmos-batch-atomic": "False",
          "x-ms-documentdb-partitionkeyrangeid": rangeId,
        },
        body: [{ operationType: "Create", resourceBody: { id, pk: "p" }, partitionKey: "[\"p\"]" }],
      });
      const ranges = (await ctx.raw({ path: `${containerPath}/pkranges` })).json.PartitionKeyRanges;
      const parent = ranges[0].id;
      a.eq((await bulk(parent, "before")).status, 200, "bulk to a current range");
      const split = await ctx.raw({ method: "POST", path: `/_cosmolite${containerPath}/pkranges/${parent}/split`, auth: "none", headers: { "x-cosmolite-key": ctx.key } });
      a.eq(split.status, 200, `split: ${split.text}`);
      a.rawError(await bulk(parent, "after"), 410, "bulk to the split range", { substatus: 1002 });
      a.deepEq(await ids(container), ["before"], "nothing applied");
    },
  },
  {
    name: "a batch with more than 100 operations or two partition keys answers 400",
    async run(ctx) {
      const { container } = await ctx.container();
      const many = Array.from({ length: 101 }, (_, i) => ({ operationType: "Create", resourceBody: { id: `i${i}`, pk: "p" } }));
      // The SDK refuses 101 operations itself; the server must too.
      const path = `/dbs/${seg(container.database.id)}/colls/${seg(container.id)}/docs`;
      const headers = {
        "x-ms-cosmos-is-batch-request": "True", "x-ms-cosmos-batch-atomic": "True",
        "x-ms-documentdb-partitionkey": "[\"p\"]",
      };
      const tooMany = await ctx.raw({ method: "POST", path, headers, body: many });
      a.rawError(tooMany, 400, "101 operations");
      const mixed = await ctx.raw({
        method: "POST", path, headers,
        body: [
          { operationType: "Create", resourceBody: { id: "1", pk: "p" }, partitionKey: "[\"p\"]" },
          { operationType: "Create", resourceBody: { id: "2", pk: "q" }, partitionKey: "[\"q\"]" },
        ],
      });
      a.rawError(mixed, 400, "two partition keys");
      const notJson = await ctx.raw({ method: "POST", path, headers, body: "[{" });
      a.rawError(notJson, 400, "a body that is not JSON");
      a.deepEq(await ids(container), [], "nothing applied");
    },
  },
  {
    name: "bulk applies each operation on its own and reports each",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "dup", pk: "p0" });
      const operations = [];
      for (let i = 0; i < 1000; ++i) {
        operations.push({ operationType: "Create", partitionKey: `p${i % 10}`, resourceBody: { id: `d${i}`, pk: `p${i % 10}`, i } });
      }
      operations.push({ operationType: "Create", partitionKey: "p0", resourceBody: { id: "dup", pk: "p0" } });
      operations.push({ operationType: "Delete", partitionKey: "p1", id: "missing" });
      operations.push({ operationType: "Upsert", partitionKey: "p2", resourceBody: { id: "d2", pk: "p2", i: -1 } });
      operations.push({ operationType: "Read", partitionKey: "p3", id: "d3" });
      const results = await container.items.executeBulkOperations(operations);
      a.eq(results.length, operations.length, "one result per operation");
      const failed = results.filter((r) => r.error);
      a.deepEq(failed.map((r) => r.error.code).sort(), [404, 409], "the failing operations");
      a.ok(results.slice(0, 1000).every((r) => r.response?.statusCode === 201), "the creates answered 201");
      const { resources } = await container.items.query("SELECT VALUE COUNT(1) FROM c").fetchAll();
      a.deepEq(resources, [1001], "documents after bulk");
      a.eq((await container.item("d2", "p2").read()).resource.i, -1, "the upsert applied after the create");
    },
  },
];
