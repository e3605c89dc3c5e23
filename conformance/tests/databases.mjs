// Databases: create, read, list, delete, and what deleting a database takes with it.
import * as a from "../lib/assert.mjs";
import { seg } from "../lib/raw.mjs";

function checkDatabaseBody(body, id, what) {
  a.eq(body.id, id, `${what}: id`);
  for (const field of ["_rid", "_self", "_etag", "_colls", "_users"]) a.isType(body[field], "string", `${what}: ${field}`);
  a.ok(Number.isInteger(body._ts), `${what}: _ts should be an integer, got ${body._ts}`);
  a.match(body._etag, /^".+"$/, `${what}: _etag is a quoted string`);
  a.match(body._self, /^dbs\/.+\/$/, `${what}: _self`);
}

export default [
  {
    name: "create answers 201 with the system properties",
    async run(ctx) {
      const id = ctx.uid("db");
      const response = await ctx.client.databases.create({ id });
      ctx.defer(() => ctx.client.database(id).delete());
      a.status(response, 201, "create database");
      a.charge(response.headers, "create database");
      checkDatabaseBody(response.resource, id, "create database");
    },
  },
  {
    name: "create of an existing id answers 409",
    async run(ctx) {
      const database = await ctx.database();
      await a.rejects(ctx.client.databases.create({ id: database.id }), 409, "duplicate database");
    },
  },
  {
    name: "read answers 200 with the same _rid",
    async run(ctx) {
      const id = ctx.uid("db");
      const created = await ctx.client.databases.create({ id });
      ctx.defer(() => ctx.client.database(id).delete());
      const read = await ctx.client.database(id).read();
      a.status(read, 200, "read database");
      a.charge(read.headers, "read database");
      checkDatabaseBody(read.resource, id, "read database");
      a.eq(read.resource._rid, created.resource._rid, "_rid");
      a.eq(read.resource._etag, created.resource._etag, "_etag");
    },
  },
  {
    name: "read of a missing database answers 404",
    async run(ctx) {
      await a.rejects(() => ctx.client.database(ctx.uid("missing")).read(), 404, "read missing database");
    },
  },
  {
    name: "databases.readAll lists it",
    async run(ctx) {
      const database = await ctx.database();
      const { resources } = await ctx.client.databases.readAll().fetchAll();
      a.ok(resources.some((d) => d.id === database.id), `readAll: ${database.id} not among ${resources.length} databases`);
    },
  },
  {
    name: "raw database feed has Databases, _count and x-ms-item-count",
    async run(ctx) {
      const database = await ctx.database();
      const response = await ctx.raw({ method: "GET", path: "/dbs" });
      a.status(response, 200, "GET /dbs");
      a.charge(response.headers, "GET /dbs");
      const body = response.json;
      a.isType(body.Databases, "array", "Databases");
      a.eq(body._count, body.Databases.length, "_count");
      a.eq(Number(a.header(response.headers, "x-ms-item-count")), body.Databases.length, "x-ms-item-count");
      a.isType(body._rid, "string", "feed _rid");
      const listed = body.Databases.find((d) => d.id === database.id);
      a.ok(listed, `GET /dbs does not list ${database.id}`);
      checkDatabaseBody(listed, database.id, "listed database");
    },
  },
  {
    name: "createIfNotExists twice: 201 then 200 with the same _rid",
    async run(ctx) {
      const id = ctx.uid("db");
      ctx.defer(() => ctx.client.database(id).delete());
      const first = await ctx.client.databases.createIfNotExists({ id });
      a.status(first, 201, "first createIfNotExists");
      const second = await ctx.client.databases.createIfNotExists({ id });
      a.status(second, 200, "second createIfNotExists");
      a.eq(second.resource._rid, first.resource._rid, "_rid");
    },
  },
  {
    name: "delete answers 204, then read answers 404",
    async run(ctx) {
      const id = ctx.uid("db");
      await ctx.client.databases.create({ id });
      const deleted = await ctx.client.database(id).delete();
      a.status(deleted, 204, "delete database");
      a.charge(deleted.headers, "delete database");
      await a.rejects(() => ctx.client.database(id).read(), 404, "read deleted database");
      await a.rejects(() => ctx.client.database(id).delete(), 404, "delete deleted database");
      const { resources } = await ctx.client.databases.readAll().fetchAll();
      a.ok(!resources.some((d) => d.id === id), "deleted database still listed");
    },
  },
  {
    name: "delete removes its containers and items (recreate same id: empty)",
    async run(ctx) {
      const id = ctx.uid("db");
      ctx.defer(async () => {
        try {
          await ctx.client.database(id).delete();
        } catch (e) {
          if (e.code !== 404) throw e;
        }
      });
      const { database } = await ctx.client.databases.create({ id });
      const { container } = await database.containers.create({ id: "c1", partitionKey: { paths: ["/pk"] } });
      await container.items.create({ id: "i1", pk: "p" });
      const oldRid = (await database.read()).resource._rid;
      await database.delete();

      const recreated = await ctx.client.databases.create({ id });
      a.status(recreated, 201, "recreate database");
      a.notEq(recreated.resource._rid, oldRid, "recreated database _rid");
      await a.rejects(() => recreated.database.container("c1").read(), 404, "read container of the deleted database");
      const { resources } = await recreated.database.containers.readAll().fetchAll();
      a.eq(resources.length, 0, "containers in the recreated database");
      const item = await ctx.raw({
        method: "GET",
        path: `/dbs/${seg(id)}/colls/c1/docs/i1`,
        headers: { "x-ms-documentdb-partitionkey": '["p"]' },
      });
      a.rawError(item, 404, "item of the deleted database");
    },
  },
  {
    name: "create with an invalid id (/ \\ ? #, empty, 256 characters) answers 400",
    async run(ctx) {
      const base = ctx.uid("db");
      for (const id of [`${base}/x`, `${base}\\x`, `${base}?x`, `${base}#x`, "", "d".repeat(256)]) {
        const response = await ctx.raw({ method: "POST", path: "/dbs", body: { id } });
        if (response.status === 201) ctx.defer(() => ctx.raw({ method: "DELETE", path: `/dbs/${seg(id)}` }));
        a.rawError(response, 400, `database id ${JSON.stringify(id.slice(0, 40))}`);
      }
    },
  },
  {
    name: "create without an id answers 400",
    async run(ctx) {
      const response = await ctx.raw({ method: "POST", path: "/dbs", body: { notId: "x" } });
      a.rawError(response, 400, "database without id");
    },
  },
  {
    name: "create with offerThroughput is accepted",
    async run(ctx) {
      const id = ctx.uid("db");
      ctx.defer(() => ctx.client.database(id).delete());
      const response = await ctx.client.databases.create({ id }, { offerThroughput: 400 });
      a.status(response, 201, "create database with 400 RU/s");
      const { container, statusCode } = await response.database.containers.create(
        { id: "c", partitionKey: { paths: ["/pk"] } },
        { offerThroughput: 400 },
      );
      a.eq(statusCode, 201, "create container with 400 RU/s");
      a.status(await container.items.create({ id: "x", pk: "p" }), 201, "write to it");
    },
  },
  {
    name: "database feed pages with maxItemCount (x-ms-max-item-count / x-ms-continuation)",
    async run(ctx) {
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await ctx.database()).id);
      const iterator = ctx.client.databases.readAll({ maxItemCount: 1 });
      const seen = [];
      for (let page = 1; iterator.hasMoreResults() && page < 1000; page++) {
        const { resources } = await iterator.fetchNext();
        a.ok(resources.length <= 1, `page ${page} has ${resources.length} databases with maxItemCount 1`);
        seen.push(...resources.map((d) => d.id));
      }
      for (const id of ids) a.eq(seen.filter((s) => s === id).length, 1, `times ${id} was listed`);
    },
  },
];
