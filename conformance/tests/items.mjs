// Items: CRUD, system properties, partition keys (single, undefined, null, hierarchical), headers.
import * as a from "../lib/assert.mjs";
import { seg } from "../lib/raw.mjs";

export function checkItemSystemProperties(body, what) {
  a.isType(body._rid, "string", `${what}: _rid`);
  a.isType(body._self, "string", `${what}: _self`);
  a.ok(body._self.endsWith(`/docs/${body._rid}/`), `${what}: _self ${body._self} should end with /docs/${body._rid}/`);
  a.match(body._etag, /^".+"$/, `${what}: _etag is a quoted string`);
  a.ok(Number.isInteger(body._ts), `${what}: _ts should be an integer (seconds), got ${body._ts}`);
  const now = Date.now() / 1000;
  a.ok(Math.abs(body._ts - now) < 600, `${what}: _ts ${body._ts} is not within 10 minutes of now (${Math.round(now)})`);
  a.eq(body._attachments, "attachments/", `${what}: _attachments`);
}

function checkWriteHeaders(headers, what) {
  a.charge(headers, what);
  a.ok(a.header(headers, "x-ms-session-token"), `${what}: x-ms-session-token header missing`);
  a.ok(a.header(headers, "etag"), `${what}: etag header missing`);
}

function docPath(database, container, id) {
  return `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs/${seg(id)}`;
}

export default [
  {
    name: "create answers 201 with _rid, _self, _etag, _ts, _attachments",
    async run(ctx) {
      const { container } = await ctx.container();
      const doc = { id: "a", pk: "p1", n: 1.5, nested: { list: [1, "two", null, true] }, text: "héllo 漢字" };
      const response = await container.items.create(doc);
      a.status(response, 201, "create item");
      checkWriteHeaders(response.headers, "create item");
      const body = response.resource;
      checkItemSystemProperties(body, "create item");
      a.eq(a.header(response.headers, "etag"), body._etag, "etag header equals _etag");
      for (const [k, v] of Object.entries(doc)) a.deepEq(body[k], v, `created body ${k}`);
    },
  },
  {
    name: "read answers 200 with the stored document and headers",
    async run(ctx) {
      const { container } = await ctx.container();
      const created = (await container.items.create({ id: "a", pk: "p1", v: 1 })).resource;
      const response = await container.item("a", "p1").read();
      a.status(response, 200, "read item");
      a.charge(response.headers, "read item");
      a.ok(a.header(response.headers, "x-ms-session-token"), "read: x-ms-session-token header missing");
      a.eq(a.header(response.headers, "etag"), created._etag, "read: etag header");
      a.deepEq(response.resource, created, "read body equals created body");
    },
  },
  {
    name: "replace answers 200 with a new _etag",
    async run(ctx) {
      const { container } = await ctx.container();
      const created = (await container.items.create({ id: "a", pk: "p1", v: 1 })).resource;
      const response = await container.item("a", "p1").replace({ id: "a", pk: "p1", v: 2 });
      a.status(response, 200, "replace item");
      checkWriteHeaders(response.headers, "replace item");
      checkItemSystemProperties(response.resource, "replace item");
      a.notEq(response.resource._etag, created._etag, "_etag after replace");
      a.eq(response.resource._rid, created._rid, "_rid after replace");
      a.ok(response.resource._ts >= created._ts, "_ts went backwards");
      a.eq((await container.item("a", "p1").read()).resource.v, 2, "value after replace");
    },
  },
  {
    name: "replace of a missing item answers 404",
    async run(ctx) {
      const { container } = await ctx.container();
      await a.rejects(() => container.item("nope", "p1").replace({ id: "nope", pk: "p1" }), 404, "replace missing item");
    },
  },
  {
    name: "upsert answers 201 when inserting and 200 when replacing",
    async run(ctx) {
      const { container } = await ctx.container();
      const inserted = await container.items.upsert({ id: "u", pk: "p1", v: 1 });
      a.status(inserted, 201, "upsert (insert)");
      checkWriteHeaders(inserted.headers, "upsert (insert)");
      checkItemSystemProperties(inserted.resource, "upsert (insert)");
      const replaced = await container.items.upsert({ id: "u", pk: "p1", v: 2 });
      a.status(replaced, 200, "upsert (replace)");
      a.notEq(replaced.resource._etag, inserted.resource._etag, "_etag after upsert");
      a.eq(replaced.resource._rid, inserted.resource._rid, "_rid after upsert");
      a.eq((await container.item("u", "p1").read()).resource.v, 2, "value after upsert");
    },
  },
  {
    name: "delete answers 204, then read answers 404 and delete again 404",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "d", pk: "p1" });
      const deleted = await container.item("d", "p1").delete();
      a.status(deleted, 204, "delete item");
      a.charge(deleted.headers, "delete item");
      const read = await container.item("d", "p1").read();
      a.status(read, 404, "read deleted item");
      await a.rejects(() => container.item("d", "p1").delete(), 404, "delete deleted item");
    },
  },
  {
    name: "same id in two logical partitions: both exist independently",
    async run(ctx) {
      const { container } = await ctx.container();
      a.status(await container.items.create({ id: "same", pk: "p1", v: 1 }), 201, "create in p1");
      a.status(await container.items.create({ id: "same", pk: "p2", v: 2 }), 201, "create in p2");
      a.eq((await container.item("same", "p1").read()).resource.v, 1, "value in p1");
      a.eq((await container.item("same", "p2").read()).resource.v, 2, "value in p2");
      await container.item("same", "p1").delete();
      a.status(await container.item("same", "p1").read(), 404, "p1 after delete");
      a.status(await container.item("same", "p2").read(), 200, "p2 after deleting p1");
      a.status(await container.item("same", "p3").read(), 404, "same id in an unused partition");
    },
  },
  {
    name: "create of an existing id in the same partition answers 409",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "dup", pk: "p1", v: 1 });
      await a.rejects(() => container.items.create({ id: "dup", pk: "p1", v: 2 }), 409, "duplicate item");
      a.eq((await container.item("dup", "p1").read()).resource.v, 1, "original kept");
    },
  },
  {
    name: "item in a missing container or database answers 404 with substatus 1003",
    async run(ctx) {
      const database = await ctx.database();
      // Through the SDK the create first reads the container's partition key definition: a plain 404.
      await a.rejects(() => database.container(ctx.uid("missing")).items.create({ id: "x", pk: "p" }), 404,
        "SDK create in a missing container");
      const rawCreate = await ctx.raw({
        method: "POST",
        path: `/dbs/${seg(database.id)}/colls/missing/docs`,
        headers: { "x-ms-documentdb-partitionkey": '["p"]' },
        body: { id: "x", pk: "p" },
      });
      a.rawError(rawCreate, 404, "create in a missing container", { substatus: 1003 });
      const raw = await ctx.raw({
        method: "GET",
        path: `/dbs/${seg(database.id)}/colls/missing/docs/x`,
        headers: { "x-ms-documentdb-partitionkey": '["p"]' },
      });
      a.rawError(raw, 404, "read in a missing container", { substatus: 1003 });
      const rawDb = await ctx.raw({
        method: "POST",
        path: `/dbs/${seg(ctx.uid("missing"))}/colls/c/docs`,
        headers: { "x-ms-documentdb-partitionkey": '["p"]' },
        body: { id: "x", pk: "p" },
      });
      a.rawError(rawDb, 404, "create in a missing database", { substatus: 1003 });
    },
  },
  {
    name: "item without the partition key property uses the undefined key",
    async run(ctx) {
      const { database, container } = await ctx.container();
      a.status(await container.items.create({ id: "nopk", v: 1 }), 201, "create without pk");
      const read = await container.item("nopk", undefined).read();
      a.status(read, 200, "read with the undefined partition key");
      a.eq(read.resource.v, 1, "value");
      a.ok(!("pk" in read.resource), "no pk property was added");
      const raw = await ctx.raw({
        method: "GET",
        path: docPath(database, container, "nopk"),
        headers: { "x-ms-documentdb-partitionkey": "[{}]" },
      });
      a.status(raw, 200, "raw read with partition key [{}]");
      a.status(await container.item("nopk", "").read(), 404, "read with the empty-string key");
      a.status(await container.item("nopk", null).read(), 404, "read with the null key");
      const replaced = await container.item("nopk", undefined).replace({ id: "nopk", v: 2 });
      a.status(replaced, 200, "replace with the undefined key");
      a.status(await container.item("nopk", undefined).delete(), 204, "delete with the undefined key");
    },
  },
  {
    name: "null, undefined, number and boolean partition key values are distinct partitions",
    async run(ctx) {
      const { container } = await ctx.container();
      a.status(await container.items.create({ id: "k", pk: null, v: "null" }), 201, "create pk null");
      a.status(await container.items.create({ id: "k", v: "undefined" }), 201, "create pk undefined");
      a.status(await container.items.create({ id: "k", pk: 5, v: "five" }), 201, "create pk 5");
      a.status(await container.items.create({ id: "k", pk: true, v: "true" }), 201, "create pk true");
      a.status(await container.items.create({ id: "k", pk: "5", v: "string5" }), 201, "create pk '5'");
      a.eq((await container.item("k", null).read()).resource.v, "null", "read pk null");
      a.eq((await container.item("k", undefined).read()).resource.v, "undefined", "read pk undefined");
      a.eq((await container.item("k", 5).read()).resource.v, "five", "read pk 5");
      a.eq((await container.item("k", true).read()).resource.v, "true", "read pk true");
      a.eq((await container.item("k", "5").read()).resource.v, "string5", "read pk '5'");
    },
  },
  {
    name: "nested partition key path /a/b",
    async run(ctx) {
      const { container } = await ctx.container({ partitionKey: { paths: ["/a/b"] } });
      a.status(await container.items.create({ id: "n", a: { b: "deep" } }), 201, "create nested pk");
      a.status(await container.item("n", "deep").read(), 200, "read nested pk");
      a.status(await container.item("n", "other").read(), 404, "read wrong nested pk");
    },
  },
  {
    name: "hierarchical partition key [tenant, user]",
    async run(ctx) {
      const { container } = await ctx.container({
        partitionKey: { paths: ["/tenant", "/user"], kind: "MultiHash", version: 2 },
      });
      const created = await container.items.create({ id: "h", tenant: "a", user: "b", v: 1 });
      a.status(created, 201, "create hierarchical");
      checkItemSystemProperties(created.resource, "create hierarchical");
      const read = await container.item("h", ["a", "b"]).read();
      a.status(read, 200, "read ['a','b']");
      a.eq(read.resource.v, 1, "value");
      a.status(await container.item("h", ["a", "c"]).read(), 404, "read ['a','c']");
      a.status(await container.items.create({ id: "h", tenant: "a", user: "c", v: 2 }), 201, "same id under ['a','c']");
      a.eq((await container.item("h", ["a", "c"]).read()).resource.v, 2, "value under ['a','c']");
      a.status(await container.item("h", ["a", "b"]).replace({ id: "h", tenant: "a", user: "b", v: 3 }), 200, "replace");
      a.status(await container.item("h", ["a", "b"]).delete(), 204, "delete ['a','b']");
      a.status(await container.item("h", ["a", "c"]).read(), 200, "['a','c'] survives");
    },
  },
  {
    name: "unicode and long ids round-trip (1023-byte id accepted)",
    async run(ctx) {
      const { container } = await ctx.container();
      const ids = ["é-漢字-🙂", "with space", "a.b-c_d~e", "x".repeat(1023)];
      for (const id of ids) {
        a.status(await container.items.create({ id, pk: "p" }), 201, `create id ${id.slice(0, 20)}`);
        const read = await container.item(id, "p").read();
        a.status(read, 200, `read id ${id.slice(0, 20)}`);
        a.eq(read.resource.id, id, "id round-trip");
      }
    },
  },
  {
    name: "Prefer: return=minimal write answers without a body but with headers",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const response = await ctx.raw({
        method: "POST",
        path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`,
        headers: { "x-ms-documentdb-partitionkey": '["p"]', prefer: "return=minimal" },
        body: { id: "m", pk: "p" },
      });
      a.status(response, 201, "minimal create");
      a.eq(response.text, "", "minimal create body");
      a.ok(a.header(response.headers, "etag"), "minimal create: etag header");
      a.charge(response.headers, "minimal create");
      a.status(await container.item("m", "p").read(), 200, "item exists");
    },
  },
  {
    name: "ids are case-sensitive",
    async run(ctx) {
      const { container } = await ctx.container();
      a.status(await container.items.create({ id: "Case", pk: "p", v: 1 }), 201, "create Case");
      a.status(await container.items.create({ id: "case", pk: "p", v: 2 }), 201, "create case");
      a.eq((await container.item("Case", "p").read()).resource.v, 1, "read Case");
      a.eq((await container.item("case", "p").read()).resource.v, 2, "read case");
      a.status(await container.item("CASE", "p").read(), 404, "read CASE");
    },
  },
  {
    name: "property order is preserved and system properties come from the server",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const body = '{"id":"o","zeta":1,"pk":"p","alpha":{"y":1,"b":2},"mid":[3,1,2],"_ts":5,"_etag":"bogus"}';
      const created = await ctx.raw({
        method: "POST",
        path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`,
        headers: { "x-ms-documentdb-partitionkey": '["p"]' },
        body,
      });
      a.status(created, 201, "create");
      const read = await ctx.raw({ method: "GET", path: docPath(database, container, "o"), headers: { "x-ms-documentdb-partitionkey": '["p"]' } });
      a.status(read, 200, "read");
      const keys = Object.keys(read.json).filter((k) => !k.startsWith("_"));
      a.deepEq(keys, ["id", "zeta", "pk", "alpha", "mid"], "user property order");
      a.deepEq(Object.keys(read.json.alpha), ["y", "b"], "nested property order");
      a.deepEq(read.json.mid, [3, 1, 2], "array order");
      a.notEq(read.json._ts, 5, "_ts supplied by the client");
      a.notEq(read.json._etag, "bogus", "_etag supplied by the client");
      checkItemSystemProperties(read.json, "read");
    },
  },
  {
    name: "raw create with a chunked request body",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const response = await ctx.raw({
        method: "POST",
        path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`,
        headers: { "x-ms-documentdb-partitionkey": '["p"]' },
        body: JSON.stringify({ id: "chunked", pk: "p", text: "y".repeat(100_000) }),
        chunked: true,
      });
      a.status(response, 201, "chunked create");
      a.eq((await container.item("chunked", "p").read()).resource.text.length, 100_000, "stored text");
    },
  },
];
