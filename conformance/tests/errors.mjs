// Error answers: status, substatus and a JSON body {code, message} for every failure.
import * as a from "../lib/assert.mjs";
import { seg } from "../lib/raw.mjs";

function docsPath(database, container) {
  return `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`;
}

export default [
  {
    name: "document over 2 MB answers 413",
    async run(ctx) {
      const { container } = await ctx.container();
      const big = { id: "big", pk: "p", blob: "x".repeat(2 * 1024 * 1024 + 16) };
      await a.rejects(() => container.items.create(big), 413, "create > 2 MB");
      a.status(await container.item("big", "p").read(), 404, "oversized item not stored");
      await container.items.create({ id: "ok", pk: "p" });
      await a.rejects(() => container.item("ok", "p").replace({ id: "ok", pk: "p", blob: big.blob }), 413, "replace > 2 MB");
      await a.rejects(() => container.items.upsert(big), 413, "upsert > 2 MB");
    },
  },
  {
    name: "document just under 2 MB is accepted",
    async run(ctx) {
      const { container } = await ctx.container();
      const doc = { id: "almost", pk: "p", blob: "x".repeat(2 * 1024 * 1024 - 4096) };
      a.status(await container.items.create(doc), 201, "create just under 2 MB");
      const read = await container.item("almost", "p").read();
      a.eq(read.resource.blob.length, doc.blob.length, "blob length");
    },
  },
  {
    name: "partition key header disagreeing with the body answers 400/1001 (SDK replace)",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "x", pk: "right" });
      await a.rejects(() => container.item("x", "wrong").replace({ id: "x", pk: "right" }), 400, "replace with mismatched key",
        { substatus: 1001 });
    },
  },
  {
    name: "partition key header disagreeing with the body answers 400/1001 (raw create/upsert)",
    async run(ctx) {
      const { database, container } = await ctx.container();
      for (const upsert of [false, true]) {
        const response = await ctx.raw({
          method: "POST",
          path: docsPath(database, container),
          headers: { "x-ms-documentdb-partitionkey": '["wrong"]', "x-ms-documentdb-is-upsert": upsert ? "True" : undefined },
          body: { id: "x", pk: "right" },
        });
        a.rawError(response, 400, upsert ? "upsert with mismatched key" : "create with mismatched key", { substatus: 1001 });
      }
    },
  },
  {
    name: "write without a partition key header on a partitioned container answers 400",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const response = await ctx.raw({ method: "POST", path: docsPath(database, container), body: { id: "x", pk: "p" } });
      a.rawError(response, 400, "create without x-ms-documentdb-partitionkey");
    },
  },
  {
    name: "malformed partition key header answers 400",
    async run(ctx) {
      const { database, container } = await ctx.container();
      for (const value of ["p", "[p", '{"a":1}', '["a","b"]']) {
        const response = await ctx.raw({
          method: "POST",
          path: docsPath(database, container),
          headers: { "x-ms-documentdb-partitionkey": value },
          body: { id: "x", pk: "a" },
        });
        a.rawError(response, 400, `partition key header ${value}`);
      }
    },
  },
  {
    name: "item ids containing / # ? or \\ are stored, as the service stores them, and found by queries",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const ids = ["a/b", "a#b", "a?b", "a\\b"];
      for (const id of ids) {
        const response = await ctx.raw({
          method: "POST",
          path: docsPath(database, container),
          headers: { "x-ms-documentdb-partitionkey": '["p"]' },
          body: { id, pk: "p" },
        });
        a.eq(response.status, 201, `item id ${JSON.stringify(id)}: ${response.text}`);
      }
      const { resources } = await container.items.query("SELECT VALUE c.id FROM c ORDER BY c.id").fetchAll();
      a.deepEq(resources, [...ids].sort(), "queried ids");
    },
  },
  {
    name: "id longer than 1023 bytes answers 400",
    async run(ctx) {
      const { database, container } = await ctx.container();
      for (const id of ["x".repeat(1024), "é".repeat(512)]) {
        const response = await ctx.raw({
          method: "POST",
          path: docsPath(database, container),
          headers: { "x-ms-documentdb-partitionkey": '["p"]' },
          body: { id, pk: "p" },
        });
        a.rawError(response, 400, `id of ${Buffer.byteLength(id)} bytes`);
        a.match(response.json.message, /Ensure to provide a unique non-empty string less than '1024' characters/, "message");
      }
    },
  },
  {
    name: "missing, empty or non-string id answers 400",
    async run(ctx) {
      const { database, container } = await ctx.container();
      for (const body of [{ pk: "p" }, { id: "", pk: "p" }, { id: 5, pk: "p" }, { id: null, pk: "p" }]) {
        const response = await ctx.raw({
          method: "POST",
          path: docsPath(database, container),
          headers: { "x-ms-documentdb-partitionkey": '["p"]' },
          body,
        });
        a.rawError(response, 400, `item body ${JSON.stringify(body)}`);
      }
    },
  },
  {
    name: "malformed JSON and non-object bodies answer 400 with {code, message}",
    async run(ctx) {
      const { database, container } = await ctx.container();
      for (const body of ['{"id": "x", "pk": "p"', "not json", "[1,2]", '"text"', ""]) {
        const response = await ctx.raw({
          method: "POST",
          path: docsPath(database, container),
          headers: { "x-ms-documentdb-partitionkey": '["p"]' },
          body,
        });
        a.rawError(response, 400, `body ${JSON.stringify(body)}`);
        a.match(a.header(response.headers, "content-type"), /application\/json/, "error content-type");
      }
      const db = await ctx.raw({ method: "POST", path: "/dbs", body: "{nope" });
      a.rawError(db, 400, "malformed database body");
    },
  },
  {
    name: "unknown path answers 404 with a JSON body",
    async run(ctx) {
      for (const path of ["/foo", "/dbs/x/foo", "/dbs/x/colls/y/bar/z"]) {
        const response = await ctx.raw({ method: "GET", path });
        a.rawError(response, 404, `GET ${path}`);
      }
    },
  },
  {
    name: "unsupported verb on a resource answers 405",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const cases = [
        { method: "DELETE", path: "/dbs" },
        { method: "DELETE", path: docsPath(database, container) },
        { method: "PUT", path: docsPath(database, container), body: { id: "x" } },
        { method: "POST", path: `/dbs/${seg(database.id)}`, body: { id: "x" } },
      ];
      for (const c of cases) {
        const response = await ctx.raw(c);
        a.rawError(response, 405, `${c.method} ${c.path}`);
      }
    },
  },
  {
    name: "unique key violation answers 409 (create, replace, upsert)",
    async run(ctx) {
      const { container } = await ctx.container({ uniqueKeyPolicy: { uniqueKeys: [{ paths: ["/email"] }] } });
      await container.items.create({ id: "u1", pk: "p", email: "a@x" });
      await a.rejects(() => container.items.create({ id: "u2", pk: "p", email: "a@x" }), 409, "create with a taken unique key");
      a.status(await container.items.create({ id: "u2", pk: "p", email: "b@x" }), 201, "create with a free unique key");
      a.status(await container.items.create({ id: "u3", pk: "other", email: "a@x" }), 201,
        "unique keys are scoped to the logical partition");
      await a.rejects(() => container.item("u2", "p").replace({ id: "u2", pk: "p", email: "a@x" }), 409,
        "replace into a taken unique key");
      await a.rejects(() => container.items.upsert({ id: "u4", pk: "p", email: "a@x" }), 409, "upsert into a taken unique key");
      a.status(await container.item("u2", "p").replace({ id: "u2", pk: "p", email: "c@x" }), 200, "replace to a free key");
      await container.item("u1", "p").delete();
      a.status(await container.items.create({ id: "u5", pk: "p", email: "a@x" }), 201, "key freed by delete");
    },
  },
  {
    name: "invalid x-ms-max-item-count answers 400",
    async run(ctx) {
      const { database, container } = await ctx.container();
      for (const value of ["abc", "-5"]) {
        const response = await ctx.raw({ method: "GET", path: docsPath(database, container), headers: { "x-ms-max-item-count": value } });
        a.rawError(response, 400, `x-ms-max-item-count ${value}`);
      }
    },
  },
  {
    name: "errors through the SDK carry a JSON body and activity id",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "e", pk: "p" });
      const error = await a.rejects(() => container.items.create({ id: "e", pk: "p" }), 409, "conflict");
      a.ok(a.header(error.headers, "x-ms-activity-id"), "x-ms-activity-id header on an error");
      a.ok(a.header(error.headers, "x-ms-request-charge") !== undefined, "x-ms-request-charge header on an error");
    },
  },
];
