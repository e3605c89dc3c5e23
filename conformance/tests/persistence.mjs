// Restarts: data in --data-dir survives SIGTERM and restart; --in-memory data does not.
// These tests start their own server processes, so they only run when the suite manages servers.
import * as a from "../lib/assert.mjs";
import { makeClient } from "../lib/context.mjs";
import { ServerProcess, httpGet, makeTempDir, removeDir } from "../lib/server.mjs";

async function stopCleanly(server, what) {
  const exit = await server.stop();
  a.ok(exit && exit.code === 0, `${what}: SIGTERM should exit with code 0, got ${JSON.stringify(exit)}\n${server.output.slice(-1000)}`);
}

async function restart(ctx, server, what) {
  await stopCleanly(server, what);
  await server.start(); // the same port when still free, the same data directory
}

// A server of the test's own on a fresh data directory, both gone when the test ends.
async function startOnDataDir(ctx) {
  const dir = makeTempDir();
  ctx.defer(() => removeDir(dir));
  const server = new ServerProcess({ tls: ctx.tls, dataDir: dir });
  ctx.defer(() => server.stop());
  await server.start();
  return server;
}

export default [
  {
    name: "data in --data-dir survives a restart with the same _etag, _rid and _ts",
    requires: ["managed"],
    async run(ctx) {
      const server = await startOnDataDir(ctx);

      let client = makeClient(server.endpoint, server.key);
      const { database } = await client.databases.create({ id: "persist" });
      const { resource: containerBefore } = await database.containers.create({
        id: "c",
        partitionKey: { paths: ["/pk"] },
        defaultTtl: 600,
        uniqueKeyPolicy: { uniqueKeys: [{ paths: ["/email"] }] },
      });
      const container = database.container("c");
      const before = [];
      for (let i = 0; i < 3; i++) before.push((await container.items.create({ id: `i${i}`, pk: `p${i}`, v: i, email: `e${i}` })).resource);
      await container.item("i1", "p1").delete();
      const pemBefore = ctx.tls ? (await httpGet(`${server.endpoint}_explorer/emulator.pem`, 2000)).body : null;
      client.dispose();

      await restart(ctx, server, "first run");
      client = makeClient(server.endpoint, server.key);
      ctx.defer(() => client.dispose());
      const c = client.database("persist").container("c");
      const { resources: databases } = await client.databases.readAll().fetchAll();
      a.ok(databases.some((d) => d.id === "persist"), "database listed after restart");
      const { resource: containerAfter } = await c.read();
      a.deepEq(containerAfter, containerBefore, "container properties after restart");
      for (const doc of [before[0], before[2]]) {
        const read = await c.item(doc.id, doc.pk).read();
        a.status(read, 200, `read ${doc.id} after restart`);
        a.deepEq(read.resource, doc, `${doc.id} after restart`);
      }
      a.status(await c.item("i1", "p1").read(), 404, "deleted item stays deleted");

      // New writes get fresh resource ids, and the unique key index came back too.
      const fresh = (await c.items.create({ id: "i3", pk: "p3", email: "x" })).resource;
      a.ok(!before.some((d) => d._rid === fresh._rid), `new item reuses a _rid: ${fresh._rid}`);
      await a.rejects(() => c.items.create({ id: "i4", pk: "p0", email: "e0" }), 409, "unique key after restart");

      if (ctx.tls) {
        const pemAfter = (await httpGet(`${server.endpoint}_explorer/emulator.pem`, 2000)).body;
        a.eq(pemAfter, pemBefore, "the generated certificate in --data-dir is reused after restart");
      }
      await stopCleanly(server, "second run");
    },
  },
  {
    name: "--in-memory data is gone after a restart",
    requires: ["managed"],
    async run(ctx) {
      const server = new ServerProcess({ tls: ctx.tls, inMemory: true });
      ctx.defer(() => server.stop());
      await server.start();
      let client = makeClient(server.endpoint, server.key);
      await client.databases.create({ id: "volatile" });
      client.dispose();
      await restart(ctx, server, "first run");
      client = makeClient(server.endpoint, server.key);
      ctx.defer(() => client.dispose());
      await a.rejects(() => client.database("volatile").read(), 404, "database after restart");
      const { resources } = await client.databases.readAll().fetchAll();
      a.eq(resources.length, 0, "databases after restart");
      await stopCleanly(server, "second run");
    },
  },
  {
    name: "SIGTERM while requests are in flight still exits 0",
    requires: ["managed"],
    async run(ctx) {
      const server = new ServerProcess({ tls: ctx.tls, inMemory: true });
      ctx.defer(() => server.stop());
      await server.start();
      const client = makeClient(server.endpoint, server.key);
      ctx.defer(() => client.dispose());
      const { database } = await client.databases.create({ id: "busy" });
      const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
      const writes = [];
      for (let i = 0; i < 50; i++) writes.push(container.items.create({ id: `w${i}`, pk: "p" }).catch(() => null));
      await new Promise((r) => setTimeout(r, 5));
      await stopCleanly(server, "busy server");
      await Promise.all(writes);
    },
  },
  {
    name: "users, permissions and their resource tokens survive a restart (the signing secret is in the data file)",
    requires: ["managed"],
    async run(ctx) {
      const server = await startOnDataDir(ctx);

      let client = makeClient(server.endpoint, server.key);
      const { database } = await client.databases.create({ id: "persist-security" });
      const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
      await container.items.create({ id: "a", pk: "p" });
      await database.users.create({ id: "alice" });
      const { resource: permission } = await database
        .user("alice")
        .permissions.create({ id: "read-c", permissionMode: "Read", resource: container.url });
      client.dispose();

      await restart(ctx, server, "first run");
      client = makeClient(server.endpoint, server.key);
      ctx.defer(() => client.dispose());
      const { resources: users } = await client.database("persist-security").users.readAll().fetchAll();
      a.deepEq(users.map((user) => user.id), ["alice"], "users after restart");
      const tokenClient = makeClient(server.endpoint, undefined, { resourceTokens: { c: permission._token } });
      ctx.defer(() => tokenClient.dispose());
      const read = await tokenClient.database("persist-security").container("c").item("a", "p").read();
      a.status(read, 200, "the token issued before the restart reads the item after it");
    },
  },
];
