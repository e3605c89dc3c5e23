// Optimistic concurrency: If-Match on writes (412 when stale), If-None-Match on reads (304).
import * as a from "../lib/assert.mjs";
import { seg } from "../lib/raw.mjs";

async function itemWithStaleEtag(ctx) {
  const { database, container } = await ctx.container();
  const first = (await container.items.create({ id: "o", pk: "p", v: 1 })).resource;
  const second = (await container.item("o", "p").replace({ id: "o", pk: "p", v: 2 })).resource;
  a.notEq(second._etag, first._etag, "setup: etag changed");
  return { database, container, stale: first._etag, current: second._etag };
}

const ifMatch = (etag) => ({ accessCondition: { type: "IfMatch", condition: etag } });

export default [
  {
    name: "replace with a stale If-Match answers 412, with the current one 200",
    async run(ctx) {
      const { container, stale, current } = await itemWithStaleEtag(ctx);
      await a.rejects(() => container.item("o", "p").replace({ id: "o", pk: "p", v: 3 }, ifMatch(stale)), 412, "replace stale");
      a.eq((await container.item("o", "p").read()).resource.v, 2, "value unchanged after 412");
      const ok = await container.item("o", "p").replace({ id: "o", pk: "p", v: 3 }, ifMatch(current));
      a.status(ok, 200, "replace current");
      a.eq((await container.item("o", "p").read()).resource.v, 3, "value after replace");
    },
  },
  {
    name: "upsert with a stale If-Match answers 412, with the current one 200",
    async run(ctx) {
      const { container, stale, current } = await itemWithStaleEtag(ctx);
      await a.rejects(() => container.items.upsert({ id: "o", pk: "p", v: 3 }, ifMatch(stale)), 412, "upsert stale");
      a.eq((await container.item("o", "p").read()).resource.v, 2, "value unchanged after 412");
      const ok = await container.items.upsert({ id: "o", pk: "p", v: 3 }, ifMatch(current));
      a.status(ok, 200, "upsert current");
    },
  },
  {
    name: "delete with a stale If-Match answers 412, with the current one 204",
    async run(ctx) {
      const { container, stale, current } = await itemWithStaleEtag(ctx);
      await a.rejects(() => container.item("o", "p").delete(ifMatch(stale)), 412, "delete stale");
      a.status(await container.item("o", "p").read(), 200, "item still there after 412");
      a.status(await container.item("o", "p").delete(ifMatch(current)), 204, "delete current");
    },
  },
  {
    name: "read with If-None-Match: current etag 304 (empty body), stale etag 200",
    async run(ctx) {
      const { database, container, stale, current } = await itemWithStaleEtag(ctx);
      const notModified = await container.item("o", "p").read({ accessCondition: { type: "IfNoneMatch", condition: current } });
      a.status(notModified, 304, "read with the current etag");
      const modified = await container.item("o", "p").read({ accessCondition: { type: "IfNoneMatch", condition: stale } });
      a.status(modified, 200, "read with a stale etag");
      a.eq(modified.resource.v, 2, "value");

      const raw = await ctx.raw({
        method: "GET",
        path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs/o`,
        headers: { "x-ms-documentdb-partitionkey": '["p"]', "if-none-match": current },
      });
      a.status(raw, 304, "raw read with the current etag");
      a.eq(raw.text, "", "304 body");
      a.eq(a.header(raw.headers, "etag"), current, "304 etag header");
    },
  },
  {
    name: "upsert with If-Match of a missing item creates it (201)",
    async run(ctx) {
      const { container } = await ctx.container();
      // The service applies If-Match to upsert only when the item exists; otherwise upsert creates
      // (Azure/azure-cosmos-dotnet-v3#1698, Azure/azure-sdk-for-java#43717).
      const response = await container.items.upsert({ id: "ghost", pk: "p" }, ifMatch('"00000000-0000-0000-0000-000000000000"'));
      a.status(response, 201, "upsert If-Match on a missing item");
      a.status(await container.item("ghost", "p").read(), 200, "item created");
    },
  },
  {
    name: "concurrent replaces with the same If-Match: exactly one wins, the others get 412",
    async run(ctx) {
      const { container, current } = await itemWithStaleEtag(ctx);
      const attempts = Array.from({ length: 10 }, (_, i) =>
        container.item("o", "p").replace({ id: "o", pk: "p", v: 100 + i }, ifMatch(current)).then(
          (r) => r.statusCode,
          (e) => e.code,
        ));
      const statuses = await Promise.all(attempts);
      a.eq(statuses.filter((s) => s === 200).length, 1, `successful replaces among ${JSON.stringify(statuses)}`);
      a.eq(statuses.filter((s) => s === 412).length, 9, `412 answers among ${JSON.stringify(statuses)}`);
    },
  },
  {
    name: "concurrent creates of one id: exactly one 201, the others 409",
    async run(ctx) {
      const { container } = await ctx.container();
      const attempts = Array.from({ length: 10 }, (_, i) =>
        container.items.create({ id: "race", pk: "p", v: i }).then((r) => r.statusCode, (e) => e.code));
      const statuses = await Promise.all(attempts);
      a.eq(statuses.filter((s) => s === 201).length, 1, `201 answers among ${JSON.stringify(statuses)}`);
      a.eq(statuses.filter((s) => s === 409).length, 9, `409 answers among ${JSON.stringify(statuses)}`);
    },
  },
  {
    name: "container replace and delete honour If-Match (412 when stale)",
    async run(ctx) {
      const { container } = await ctx.container();
      const first = (await container.read()).resource;
      const second = (await container.replace({ ...first, defaultTtl: 100 })).resource;
      a.notEq(second._etag, first._etag, "container _etag after replace");
      await a.rejects(() => container.replace({ ...second, defaultTtl: 200 }, ifMatch(first._etag)), 412, "replace container with a stale etag");
      a.eq((await container.read()).resource.defaultTtl, 100, "defaultTtl unchanged after 412");
      await a.rejects(() => container.delete(ifMatch(first._etag)), 412, "delete container with a stale etag");
      a.status(await container.read(), 200, "container still there after 412");
      a.status(await container.replace({ ...second, defaultTtl: 200 }, ifMatch(second._etag)), 200, "replace with the current etag");
    },
  },
  {
    name: "database delete honours If-Match (412 when stale)",
    async run(ctx) {
      const database = await ctx.database();
      await a.rejects(() => database.delete(ifMatch('"00000000-0000-0000-0000-000000000000"')), 412, "delete database with a stale etag");
      a.status(await database.read(), 200, "database still there after 412");
      const { resource } = await database.read();
      a.status(await database.delete(ifMatch(resource._etag)), 204, "delete database with the current etag");
    },
  },
];
