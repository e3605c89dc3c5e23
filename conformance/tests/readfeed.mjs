// The document read feed (GET .../docs) with paging through x-ms-continuation.
import * as a from "../lib/assert.mjs";
import { seg } from "../lib/raw.mjs";
import { checkItemSystemProperties } from "./items.mjs";

async function readAllPages(ctx, path, { maxItemCount, partitionKey } = {}) {
  const pages = [];
  let continuation;
  for (let i = 0; i < 50; i++) {
    const response = await ctx.raw({
      method: "GET",
      path,
      headers: {
        "x-ms-max-item-count": maxItemCount,
        "x-ms-continuation": continuation,
        "x-ms-documentdb-partitionkey": partitionKey,
      },
    });
    a.status(response, 200, `read feed page ${i + 1}`);
    a.charge(response.headers, `read feed page ${i + 1}`);
    const body = response.json;
    a.isType(body?.Documents, "array", `page ${i + 1}: Documents`);
    a.eq(body._count, body.Documents.length, `page ${i + 1}: _count`);
    a.eq(Number(a.header(response.headers, "x-ms-item-count")), body.Documents.length, `page ${i + 1}: x-ms-item-count`);
    pages.push(body.Documents);
    continuation = a.header(response.headers, "x-ms-continuation");
    if (!continuation) return pages;
  }
  a.fail("read feed did not end after 50 pages");
}

export default [
  {
    name: "5 items with x-ms-max-item-count 2 come in pages of 2, 2, 1",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const ids = ["r1", "r2", "r3", "r4", "r5"];
      for (const [i, id] of ids.entries()) await container.items.create({ id, pk: `p${i % 3}` });
      const path = `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`;
      const pages = await readAllPages(ctx, path, { maxItemCount: 2 });
      a.deepEq(pages.map((p) => p.length), [2, 2, 1], "page sizes");
      const seen = pages.flat().map((d) => d.id).sort();
      a.deepEq(seen, ids, "ids seen exactly once");
      for (const doc of pages.flat()) checkItemSystemProperties(doc, `feed item ${doc.id}`);
    },
  },
  {
    name: "read feed without x-ms-max-item-count returns everything in one page",
    async run(ctx) {
      const { database, container } = await ctx.container();
      for (let i = 0; i < 7; i++) await container.items.create({ id: `f${i}`, pk: "p" });
      const path = `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`;
      const pages = await readAllPages(ctx, path, {});
      a.eq(pages.flat().length, 7, "items");
      const all = await readAllPages(ctx, path, { maxItemCount: -1 });
      a.eq(all.flat().length, 7, "items with x-ms-max-item-count -1");
    },
  },
  {
    name: "read feed of an empty container answers an empty page",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const pages = await readAllPages(ctx, `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`, { maxItemCount: 10 });
      a.deepEq(pages.flat(), [], "documents");
    },
  },
  {
    name: "read feed scoped to one logical partition by the partition key header",
    async run(ctx) {
      const { database, container } = await ctx.container();
      for (const [id, pk] of [["a1", "a"], ["a2", "a"], ["a3", "a"], ["b1", "b"], ["b2", "b"]]) {
        await container.items.create({ id, pk });
      }
      const path = `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`;
      const pages = await readAllPages(ctx, path, { maxItemCount: 2, partitionKey: '["a"]' });
      a.deepEq(pages.flat().map((d) => d.id).sort(), ["a1", "a2", "a3"], "ids in partition a");
    },
  },
  {
    name: "deleted items disappear from the read feed",
    async run(ctx) {
      const { database, container } = await ctx.container();
      for (const id of ["d1", "d2", "d3"]) await container.items.create({ id, pk: "p" });
      await container.item("d2", "p").delete();
      const path = `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`;
      const pages = await readAllPages(ctx, path, {});
      a.deepEq(pages.flat().map((d) => d.id).sort(), ["d1", "d3"], "ids after delete");
    },
  },
  {
    name: "read feed of a missing container answers 404/1003",
    async run(ctx) {
      const database = await ctx.database();
      const response = await ctx.raw({ method: "GET", path: `/dbs/${seg(database.id)}/colls/none/docs` });
      a.rawError(response, 404, "read feed of a missing container", { substatus: 1003 });
    },
  },
  {
    name: "a malformed continuation token answers 400",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const response = await ctx.raw({
        method: "GET",
        path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`,
        headers: { "x-ms-continuation": "not a continuation token" },
      });
      a.rawError(response, 400, "malformed continuation");
    },
  },
];
