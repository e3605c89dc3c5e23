// Session consistency: session tokens on writes, reads that present them.
import * as a from "../lib/assert.mjs";
import { seg } from "../lib/raw.mjs";

// The global LSN a session token carries: "{pkRangeId}:{version}#{globalLsn}[#...]" (or the V1 "{pkRangeId}:{lsn}").
function tokenLsn(token, what) {
  a.match(token, /^[^:,]+:[^,]+$/, `${what}: session token shape`);
  const rest = token.slice(token.indexOf(":") + 1);
  const parts = rest.split("#");
  const lsn = Number(parts.length > 1 ? parts[1] : parts[0]);
  a.ok(Number.isInteger(lsn) && lsn >= 0, `${what}: session token ${token} carries no LSN`);
  return lsn;
}

export default [
  {
    name: "writes return session tokens whose LSN does not go backwards",
    async run(ctx) {
      const { container } = await ctx.container();
      const first = await container.items.create({ id: "s", pk: "p", v: 1 });
      const second = await container.item("s", "p").replace({ id: "s", pk: "p", v: 2 });
      const lsn1 = tokenLsn(a.header(first.headers, "x-ms-session-token"), "create");
      const lsn2 = tokenLsn(a.header(second.headers, "x-ms-session-token"), "replace");
      a.ok(lsn2 > lsn1, `LSN should grow across writes: ${lsn1} then ${lsn2}`);
    },
  },
  {
    name: "read after write with the session token (SDK option) sees the write",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "s", pk: "p", v: 1 });
      const written = await container.item("s", "p").replace({ id: "s", pk: "p", v: 2 });
      const sessionToken = a.header(written.headers, "x-ms-session-token");
      const read = await container.item("s", "p").read({ sessionToken });
      a.status(read, 200, "read with session token");
      a.eq(read.resource.v, 2, "read sees the write");
      a.eq(read.resource._etag, written.resource._etag, "_etag");
    },
  },
  {
    name: "raw read with x-ms-session-token and x-ms-consistency-level Session",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const written = await container.items.create({ id: "s", pk: "p", v: 1 });
      const token = a.header(written.headers, "x-ms-session-token");
      const response = await ctx.raw({
        method: "GET",
        path: `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs/s`,
        headers: {
          "x-ms-documentdb-partitionkey": '["p"]',
          "x-ms-session-token": token,
          "x-ms-consistency-level": "Session",
        },
      });
      a.status(response, 200, "raw session read");
      a.eq(response.json.v, 1, "value");
      a.ok(a.header(response.headers, "x-ms-session-token"), "read answers a session token");
    },
  },
  {
    name: "a second client reads its own writes with the default Session consistency",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const client = ctx.newClient({ consistencyLevel: "Session" });
      ctx.defer(() => client.dispose());
      const c = client.database(database.id).container(container.id);
      for (let v = 1; v <= 3; v++) {
        await c.items.upsert({ id: "s", pk: "p", v });
        a.eq((await c.item("s", "p").read()).resource.v, v, `read after upsert ${v}`);
      }
    },
  },
  {
    name: "Eventual consistency read is accepted",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "s", pk: "p" });
      const read = await container.item("s", "p").read({ consistencyLevel: "Eventual" });
      a.status(read, 200, "eventual read");
    },
  },
];
