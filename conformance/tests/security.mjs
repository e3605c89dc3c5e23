// Security: users and permissions (CRUD, system properties, 409/404/412/400), resource tokens (what a
// client built with `resourceTokens` may do: All / Read permissions, a partition-key-scoped permission,
// a document-scoped permission, 403 "Forbidden" for everything else, 401 for an altered or revoked
// token), Entra ID (AAD) tokens on servers of the test's own (`--aad-tokens off|emulator|any`,
// `--aad-readers`), and malformed authorization headers over raw HTTP (401/400 with a JSON body,
// never 5xx). The resource-token expiry (10 s) is tested once, in python/tests/test_security.py.
import https from "node:https";
import { CosmosClient } from "@azure/cosmos";
import * as a from "../lib/assert.mjs";
import { makeClient } from "../lib/context.mjs";
import { DEFAULT_KEY, ServerProcess } from "../lib/server.mjs";
import { rawRequest, seg } from "../lib/raw.mjs";

const FORBIDDEN_MESSAGE = /^Insufficient permissions provided in the authorization header/;
const EMULATOR_OID = "96313034-4739-43cb-93cd-74193adbe5b6";

// --- helpers -------------------------------------------------------------------------------------

// A 403 from a resource-token request: code "Forbidden" and the service's message.
async function forbidden(promiseOrFn, what) {
  const error = await a.rejects(promiseOrFn, 403, what);
  a.eq(error.body?.code, "Forbidden", `${what}: error code`);
  a.match(error.body?.message, FORBIDDEN_MESSAGE, `${what}: error message`);
  return error;
}

function rawForbidden(response, what) {
  a.rawError(response, 403, what);
  a.eq(response.json.code, "Forbidden", `${what}: error code`);
  a.match(response.json.message, FORBIDDEN_MESSAGE, `${what}: error message`);
}

// A raw request whose authorization header is the given (resource or AAD) token, URL-encoded as the SDKs send it.
function tokenRaw(endpoint, token, options) {
  return rawRequest({ endpoint, key: DEFAULT_KEY }, { ...options, auth: encodeURIComponent(token) });
}

// An SDK client that authenticates with resource tokens only.
function tokenClient(ctx, resourceTokens) {
  const client = makeClient(ctx.endpoint, undefined, { resourceTokens });
  ctx.defer(() => client.dispose());
  return client;
}

// A database, a container on /pk (with items a/p1 and b/p2), a user and one permission on the
// container (or on what `resource(containerDefinition, itemA, container)` returns). Returns everything plus the token.
async function permissionOn(ctx, { mode = "All", resource, resourcePartitionKey, options } = {}) {
  const { database, container } = await ctx.container();
  const { resource: containerDef } = await container.read();
  const { resource: itemA } = await container.items.create({ id: "a", pk: "p1", n: 1 });
  await container.items.create({ id: "b", pk: "p2", n: 2 });
  const { user } = await database.users.create({ id: ctx.uid("u") });
  const body = { id: ctx.uid("perm"), permissionMode: mode, resource: resource ? resource(containerDef, itemA, container) : containerDef._self };
  if (resourcePartitionKey !== undefined) body.resourcePartitionKey = resourcePartitionKey;
  const response = await user.permissions.create(body, options);
  a.status(response, 201, "setup: create permission");
  const permission = response.resource;
  return { database, container, containerDef, itemA, user, permission, token: permission._token };
}

function checkToken(token, what) {
  a.match(token, /^type=resource&ver=1\.0&sig=./, `${what}: _token`);
}

// The token with one character of its signature part changed.
function alterSignature(token) {
  const start = token.indexOf("sig=") + 4;
  for (let i = start + 2; i < token.length; i++) {
    if (/[A-Za-z0-9]/.test(token[i])) {
      return token.slice(0, i) + (token[i] === "A" ? "B" : "A") + token.slice(i + 1);
    }
  }
  throw new Error(`no alphanumeric character in the signature of ${token}`);
}

// --- Entra ID (AAD) tokens -----------------------------------------------------------------------

const b64url = (text) => Buffer.from(text, "utf8").toString("base64url"); // no padding

// A JWT shaped like the Cosmos DB emulator's Entra ID test tokens: the signature part is the
// base64url of the account key text.
function emulatorJwt({ key = DEFAULT_KEY, exp, oid = EMULATOR_OID, signature } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const header = { typ: "JWT", alg: "RS256", x5t: "CosmosEmulatorPrimaryMaster", kid: "CosmosEmulatorPrimaryMaster" };
  const claims = {
    aud: "https://localhost.localhost",
    iss: "https://sts.fake-issuer.net/7b1999a1-dfd7-440e-8204-00170979b984",
    iat: now,
    nbf: now,
    exp: exp ?? now + 7200,
    aio: "",
    appid: "localhost",
    appidacr: "1",
    idp: "https://localhost:8081/",
    oid,
    rh: "",
    sub: "localhost",
    tid: "EmulatorFederation",
    uti: "",
    ver: "1.0",
    scp: "user_impersonation",
  };
  return `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}.${signature ?? b64url(key)}`;
}

// An HTTPS cosmolite of the test's own (the SDKs send bearer tokens over HTTPS only), stopped after the test.
async function ownServer(ctx, extraArgs) {
  const server = new ServerProcess({ tls: true, extraArgs });
  ctx.defer(() => server.stop());
  await server.start();
  return server;
}

function aadClient(ctx, endpoint, jwt) {
  const client = new CosmosClient({
    endpoint,
    aadCredentials: { getToken: async () => ({ token: jwt, expiresOnTimestamp: Date.now() + 3_600_000 }) },
    agent: new https.Agent({ rejectUnauthorized: false }),
  });
  ctx.defer(() => client.dispose());
  return client;
}

// A database "aad" with container "c" (/pk) and item a/p, created with the master key.
async function seed(ctx, endpoint) {
  const admin = makeClient(endpoint, DEFAULT_KEY);
  ctx.defer(() => admin.dispose());
  const { database } = await admin.databases.create({ id: "aad" });
  const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] }, throughput: 400 });
  await container.items.create({ id: "a", pk: "p", n: 1 });
  return { admin, database, container };
}

const aadTest = (name, run) => ({ name, requires: ["managed", "tls"], run });

// --- malformed authorization headers ---------------------------------------------------------------

const MALFORMED = [
  ["missing parts", encodeURIComponent("type=master&ver=1.0")],
  ["an unknown type", encodeURIComponent("type=foo&ver=1.0&sig=abc")],
  ["a signature that is not base64", encodeURIComponent("type=master&ver=1.0&sig=@@@###")],
  ["version 2.0", encodeURIComponent("type=master&ver=2.0&sig=AAAA")],
  ["a bad percent escape", "type%zz=master%26ver%3D1.0%26sig%3DAAAA"],
  ["a garbage resource token", encodeURIComponent("type=resource&ver=1.0&sig=garbage")],
  ["an AAD token that is not a JWT", encodeURIComponent("type=aad&ver=1.0&sig=not-a-jwt")],
  ["an AAD token a.b.c with non-JSON parts", encodeURIComponent("type=aad&ver=1.0&sig=a.b.c")],
  ["a 30 KB header", encodeURIComponent(`type=master&ver=1.0&sig=${"A".repeat(30 * 1024)}`)],
  ["an empty header", ""],
];

async function expectMalformedRefused(endpoint, auth, what) {
  const response = await rawRequest({ endpoint, key: DEFAULT_KEY }, { method: "GET", path: "/dbs", auth });
  a.ok(response.status === 401 || response.status === 400, `${what}: expected HTTP 401 (or 400), got ${response.status} ${response.text.slice(0, 300)}`);
  a.errorBody(response.json, what);
  const after = await rawRequest({ endpoint, key: DEFAULT_KEY }, { method: "GET", path: "/dbs" });
  a.status(after, 200, `${what}: a signed GET /dbs afterwards`);
}

export default [
  // --- users -------------------------------------------------------------------------------------
  {
    name: "users: create answers 201 with id, _rid, _self under the database, _etag, _ts and _permissions",
    async run(ctx) {
      const database = await ctx.database();
      const { resource: db } = await database.read();
      const id = ctx.uid("u");
      const response = await database.users.create({ id });
      a.status(response, 201, "create user");
      const user = response.resource;
      a.eq(user.id, id, "id");
      a.isType(user._rid, "string", "_rid");
      a.eq(user._self, `dbs/${db._rid}/users/${user._rid}/`, "_self");
      a.match(user._etag, /^".+"$/, "_etag");
      a.isType(user._ts, "number", "_ts");
      a.ok(Math.abs(user._ts - Date.now() / 1000) < 600, `_ts ${user._ts} is not within 10 minutes of now`);
      a.eq(user._permissions, "permissions/", "_permissions");
    },
  },
  {
    name: "users: read, readAll and a parameterized query find the user",
    async run(ctx) {
      const database = await ctx.database();
      const id = ctx.uid("u");
      await database.users.create({ id });
      await database.users.create({ id: ctx.uid("other") });
      const read = await database.user(id).read();
      a.status(read, 200, "read user");
      a.eq(read.resource.id, id, "read id");
      const { resources: all } = await database.users.readAll().fetchAll();
      a.eq(all.length, 2, "readAll count");
      a.ok(all.some((u) => u.id === id), "readAll includes the user");
      const { resources: found } = await database.users
        .query({ query: "SELECT * FROM root r WHERE r.id = @id", parameters: [{ name: "@id", value: id }] })
        .fetchAll();
      a.deepEq(found.map((u) => u.id), [id], "query by id");
      a.eq(found[0]._rid, read.resource._rid, "query returns the same user");
    },
  },
  {
    name: "users: replace with a new id renames the user; the old id answers 404",
    async run(ctx) {
      const database = await ctx.database();
      const oldId = ctx.uid("u");
      const newId = ctx.uid("renamed");
      const { resource: created } = await database.users.create({ id: oldId });
      const replaced = await database.user(oldId).replace({ id: newId });
      a.status(replaced, 200, "replace user");
      a.eq(replaced.resource.id, newId, "new id");
      a.eq(replaced.resource._rid, created._rid, "same _rid");
      a.notEq(replaced.resource._etag, created._etag, "_etag changes");
      a.status(await database.user(newId).read(), 200, "read under the new id");
      await a.rejects(() => database.user(oldId).read(), 404, "read under the old id");
    },
  },
  {
    name: "users: upsert creates (201) then replaces (200)",
    async run(ctx) {
      const database = await ctx.database();
      const id = ctx.uid("u");
      const first = await database.users.upsert({ id });
      a.status(first, 201, "upsert of a new user");
      const second = await database.users.upsert({ id });
      a.status(second, 200, "upsert of an existing user");
      a.eq(second.resource._rid, first.resource._rid, "same user");
      const { resources } = await database.users.readAll().fetchAll();
      a.eq(resources.length, 1, "one user");
    },
  },
  {
    name: "users: a duplicate create answers 409",
    async run(ctx) {
      const database = await ctx.database();
      const id = ctx.uid("u");
      await database.users.create({ id });
      await a.rejects(() => database.users.create({ id }), 409, "second create");
    },
  },
  {
    name: "users: read, replace and delete of a missing user answer 404",
    async run(ctx) {
      const database = await ctx.database();
      const user = database.user("no-such-user");
      await a.rejects(() => user.read(), 404, "read");
      await a.rejects(() => user.replace({ id: "no-such-user" }), 404, "replace");
      await a.rejects(() => user.delete(), 404, "delete");
    },
  },
  {
    name: "users: replace and delete with a stale If-Match answer 412",
    async run(ctx) {
      const database = await ctx.database();
      const id = ctx.uid("u");
      const { resource: created } = await database.users.create({ id });
      await database.user(id).replace({ id });
      const stale = { accessCondition: { type: "IfMatch", condition: created._etag } };
      await a.rejects(() => database.user(id).replace({ id }, stale), 412, "replace with a stale etag");
      await a.rejects(() => database.user(id).delete(stale), 412, "delete with a stale etag");
      const { resource: current } = await database.user(id).read();
      a.status(await database.user(id).delete({ accessCondition: { type: "IfMatch", condition: current._etag } }), 204, "delete with the current etag");
    },
  },
  {
    name: "users: delete answers 204 and takes the user's permissions with it",
    async run(ctx) {
      const { database, user, permission } = await permissionOn(ctx);
      a.status(await user.delete(), 204, "delete user");
      await a.rejects(() => user.read(), 404, "read the deleted user");
      await a.rejects(() => user.permission(permission.id).read(), 404, "read a permission of the deleted user");
      const { resources } = await database.users.readAll().fetchAll();
      a.eq(resources.length, 0, "no users left");
    },
  },

  // --- permissions -------------------------------------------------------------------------------
  {
    name: "permissions: create answers 201 echoing the body with _rid, _self, _etag, _ts and a resource _token",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const { resource: containerDef } = await container.read();
      const { user, resource: userDef } = await database.users.create({ id: ctx.uid("u") });
      const body = { id: ctx.uid("perm"), permissionMode: "All", resource: containerDef._self, resourcePartitionKey: ["p1"] };
      const response = await user.permissions.create(body);
      a.status(response, 201, "create permission");
      const permission = response.resource;
      a.eq(permission.id, body.id, "id");
      a.eq(permission.permissionMode, "All", "permissionMode");
      a.eq(permission.resource, containerDef._self, "resource");
      a.deepEq(permission.resourcePartitionKey, ["p1"], "resourcePartitionKey");
      a.isType(permission._rid, "string", "_rid");
      a.eq(permission._self, `${userDef._self}permissions/${permission._rid}/`, "_self");
      a.match(permission._etag, /^".+"$/, "_etag");
      a.isType(permission._ts, "number", "_ts");
      checkToken(permission._token, "create");
    },
  },
  {
    name: "permissions: read, readAll, query, replace and upsert each return a _token",
    async run(ctx) {
      const { containerDef, user, permission } = await permissionOn(ctx);
      const read = await user.permission(permission.id).read();
      a.status(read, 200, "read permission");
      a.eq(read.resource.id, permission.id, "read id");
      checkToken(read.resource._token, "read");
      const { resources: all } = await user.permissions.readAll().fetchAll();
      a.deepEq(all.map((p) => p.id), [permission.id], "readAll ids");
      checkToken(all[0]._token, "readAll");
      const { resources: found } = await user.permissions
        .query({ query: "SELECT * FROM root r WHERE r.id = @id", parameters: [{ name: "@id", value: permission.id }] })
        .fetchAll();
      a.deepEq(found.map((p) => p.id), [permission.id], "query ids");
      checkToken(found[0]._token, "query");
      const replaced = await user.permission(permission.id).replace({ id: permission.id, permissionMode: "Read", resource: containerDef._self });
      a.status(replaced, 200, "replace permission");
      a.eq(replaced.resource.permissionMode, "Read", "replaced permissionMode");
      checkToken(replaced.resource._token, "replace");
      const upserted = await user.permissions.upsert({ id: permission.id, permissionMode: "All", resource: containerDef._self });
      a.status(upserted, 200, "upsert of an existing permission");
      a.eq(upserted.resource.permissionMode, "All", "upserted permissionMode");
      checkToken(upserted.resource._token, "upsert");
    },
  },
  {
    name: "permissions: upsert of a new permission answers 201 with a _token",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const { resource: containerDef } = await container.read();
      const { user } = await database.users.create({ id: ctx.uid("u") });
      const upserted = await user.permissions.upsert({ id: ctx.uid("perm"), permissionMode: "Read", resource: containerDef._self });
      a.status(upserted, 201, "upsert of a new permission");
      checkToken(upserted.resource._token, "upsert");
    },
  },
  {
    name: "permissions: resourceTokenExpirySeconds 10 and 18000 are accepted",
    async run(ctx) {
      for (const seconds of [10, 18000]) {
        const { permission } = await permissionOn(ctx, { options: { resourceTokenExpirySeconds: seconds } });
        checkToken(permission._token, `expiry ${seconds} s`);
      }
    },
  },
  {
    name: "permissions: resourceTokenExpirySeconds 9 and 18001 answer 400",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const { resource: containerDef } = await container.read();
      const { user } = await database.users.create({ id: ctx.uid("u") });
      for (const seconds of [9, 18001]) {
        const body = { id: ctx.uid("perm"), permissionMode: "All", resource: containerDef._self };
        await a.rejects(() => user.permissions.create(body, { resourceTokenExpirySeconds: seconds }), 400, `expiry ${seconds} s`);
      }
      const { resources } = await user.permissions.readAll().fetchAll();
      a.eq(resources.length, 0, "no permission was created");
    },
  },
  {
    name: "permissions: a duplicate id for one user answers 409",
    async run(ctx) {
      const { database, user, permission } = await permissionOn(ctx);
      const { container: other } = await database.containers.create({ id: ctx.uid("c2"), partitionKey: { paths: ["/pk"] } });
      const { resource: otherDef } = await other.read();
      await a.rejects(() => user.permissions.create({ id: permission.id, permissionMode: "Read", resource: otherDef._self }), 409, "same id");
    },
  },
  {
    name: "permissions: a second permission of the user on the same resource answers 409",
    async run(ctx) {
      const { containerDef, user } = await permissionOn(ctx);
      await a.rejects(() => user.permissions.create({ id: ctx.uid("perm"), permissionMode: "Read", resource: containerDef._self }), 409, "same resource");
    },
  },
  {
    name: "permissions: a second permission naming the same container by its name-based link answers 409",
    async run(ctx) {
      const { container, user } = await permissionOn(ctx);
      await a.rejects(() => user.permissions.create({ id: ctx.uid("perm"), permissionMode: "Read", resource: container.url }), 409, "same container, name-based link");
    },
  },
  {
    name: "permissions: the same resource for two different users is fine",
    async run(ctx) {
      const { database, containerDef } = await permissionOn(ctx);
      const { user: second } = await database.users.create({ id: ctx.uid("u2") });
      const response = await second.permissions.create({ id: ctx.uid("perm"), permissionMode: "Read", resource: containerDef._self });
      a.status(response, 201, "second user's permission");
    },
  },
  {
    name: "permissions: an invalid permissionMode answers 400",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const { resource: containerDef } = await container.read();
      const { user } = await database.users.create({ id: ctx.uid("u") });
      await a.rejects(() => user.permissions.create({ id: ctx.uid("perm"), permissionMode: "Write", resource: containerDef._self }), 400, "permissionMode Write");
    },
  },
  {
    name: "permissions: a resource naming nothing in the user's database answers 400",
    async run(ctx) {
      const { database } = await ctx.container();
      const { user } = await database.users.create({ id: ctx.uid("u") });
      const { container: elsewhere } = await ctx.container(); // another database
      const { resource: elsewhereDef } = await elsewhere.read();
      for (const resource of [`dbs/${database.id}/colls/no-such-container`, elsewhereDef._self, "not a link"]) {
        await a.rejects(() => user.permissions.create({ id: ctx.uid("perm"), permissionMode: "All", resource }), 400, `resource ${resource}`);
      }
    },
  },
  {
    name: "permissions: delete answers 204; reading it again answers 404",
    async run(ctx) {
      const { user, permission } = await permissionOn(ctx);
      a.status(await user.permission(permission.id).delete(), 204, "delete permission");
      await a.rejects(() => user.permission(permission.id).read(), 404, "read after delete");
    },
  },

  // --- resource tokens ---------------------------------------------------------------------------
  {
    name: "resource tokens: GET / with a resource token is allowed (the SDK starts with it)",
    async run(ctx) {
      const { token } = await permissionOn(ctx);
      a.status(await tokenRaw(ctx.endpoint, token, { method: "GET", path: "/" }), 200, "raw GET /");
      const client = tokenClient(ctx, { anything: token });
      a.status(await client.getDatabaseAccount(), 200, "getDatabaseAccount");
    },
  },
  {
    name: "resource tokens: an All token keyed by container id reads the container and its ranges and does item CRUD and queries",
    async run(ctx) {
      const { database, container, token } = await permissionOn(ctx);
      const client = tokenClient(ctx, { [container.id]: token });
      const c = client.database(database.id).container(container.id);
      a.status(await c.read(), 200, "read container");
      const { resources: ranges } = await c.readPartitionKeyRanges().fetchAll();
      a.ok(ranges.length >= 1, "partition key ranges");
      a.eq((await c.item("a", "p1").read()).resource?.n, 1, "read item");
      a.status(await c.items.create({ id: "c", pk: "p1", n: 3 }), 201, "create item");
      a.status(await c.item("c", "p1").replace({ id: "c", pk: "p1", n: 4 }), 200, "replace item");
      a.status(await c.items.upsert({ id: "d", pk: "p2", n: 5 }), 201, "upsert item");
      const { resources } = await c.items.query("SELECT VALUE r.n FROM r").fetchAll();
      a.deepEq(resources.sort(), [1, 2, 4, 5], "cross-partition query");
      const { resources: one } = await c.items.query("SELECT VALUE r.id FROM r", { partitionKey: "p2" }).fetchAll();
      a.deepEq(one.sort(), ["b", "d"], "single-partition query");
      a.status(await c.item("c", "p1").delete(), 204, "delete item");
    },
  },
  {
    name: "resource tokens: a token keyed by dbs/{db}/colls/{c} works for item reads and writes",
    async run(ctx) {
      const { database, container, token } = await permissionOn(ctx);
      const client = tokenClient(ctx, { [`dbs/${database.id}/colls/${container.id}`]: token });
      const c = client.database(database.id).container(container.id);
      a.eq((await c.item("b", "p2").read()).resource?.n, 2, "read item");
      a.status(await c.items.create({ id: "c", pk: "p1" }), 201, "create item");
    },
  },
  {
    name: "resource tokens: a permission on the name-based link (container.url) grants access",
    async run(ctx) {
      const { database, container, token } = await permissionOn(ctx, { resource: (_def, _item, c) => c.url });
      checkToken(token, "name-based permission");
      const c = tokenClient(ctx, { [container.id]: token }).database(database.id).container(container.id);
      a.eq((await c.item("a", "p1").read()).resource?.n, 1, "read item");
      a.status(await c.items.create({ id: "c", pk: "p1" }), 201, "create item");
    },
  },
  {
    name: "resource tokens: a Read token reads and queries; its writes answer 403 Forbidden",
    async run(ctx) {
      const { database, container, token } = await permissionOn(ctx, { mode: "Read" });
      const c = tokenClient(ctx, { [container.id]: token }).database(database.id).container(container.id);
      a.status(await c.read(), 200, "read container");
      a.eq((await c.item("a", "p1").read()).resource?.n, 1, "read item");
      const { resources } = await c.items.query("SELECT VALUE r.id FROM r").fetchAll();
      a.deepEq(resources.sort(), ["a", "b"], "query");
      await forbidden(() => c.items.create({ id: "c", pk: "p1" }), "create");
      await forbidden(() => c.items.upsert({ id: "a", pk: "p1", n: 9 }), "upsert");
      await forbidden(() => c.item("a", "p1").replace({ id: "a", pk: "p1", n: 9 }), "replace");
      await forbidden(() => c.item("a", "p1").delete(), "delete");
      const { resource } = await container.item("a", "p1").read();
      a.eq(resource.n, 1, "the item is unchanged");
    },
  },
  {
    name: "resource tokens: a Read token cannot delete the container (403)",
    async run(ctx) {
      const { database, container, token } = await permissionOn(ctx, { mode: "Read" });
      const c = tokenClient(ctx, { [container.id]: token }).database(database.id).container(container.id);
      await forbidden(() => c.delete(), "delete container");
      a.status(await container.read(), 200, "the container still exists");
    },
  },
  {
    name: "resource tokens: resourcePartitionKey allows that logical partition only",
    async run(ctx) {
      const { database, container, token } = await permissionOn(ctx, { resourcePartitionKey: ["p1"] });
      const c = tokenClient(ctx, { [container.id]: token }).database(database.id).container(container.id);
      a.eq((await c.item("a", "p1").read()).resource?.n, 1, "read in p1");
      a.status(await c.items.create({ id: "c", pk: "p1" }), 201, "create in p1");
      const { resources } = await c.items.query("SELECT VALUE r.id FROM r", { partitionKey: "p1" }).fetchAll();
      a.deepEq(resources.sort(), ["a", "c"], "query scoped to p1");
      await forbidden(() => c.item("b", "p2").read(), "read in p2");
      await forbidden(() => c.items.create({ id: "d", pk: "p2" }), "create in p2");
      await forbidden(() => c.items.query("SELECT VALUE r.id FROM r", { partitionKey: "p2" }).fetchAll(), "query scoped to p2");
    },
  },
  {
    name: "resource tokens: resourcePartitionKey refuses a cross-partition query (403)",
    async run(ctx) {
      const { database, container, token } = await permissionOn(ctx, { resourcePartitionKey: ["p1"] });
      const c = tokenClient(ctx, { [container.id]: token }).database(database.id).container(container.id);
      await forbidden(() => c.items.query("SELECT VALUE r.id FROM r").fetchAll(), "cross-partition query");
    },
  },
  {
    name: "resource tokens: the token of container A does not open container B (403)",
    async run(ctx) {
      const { database, token } = await permissionOn(ctx);
      const { container: other } = await database.containers.create({ id: ctx.uid("b"), partitionKey: { paths: ["/pk"] } });
      await other.items.create({ id: "x", pk: "p" });
      const b = tokenClient(ctx, { [other.id]: token }).database(database.id).container(other.id);
      await forbidden(() => b.item("x", "p").read(), "read item of B");
      await forbidden(() => b.items.create({ id: "y", pk: "p" }), "create item in B");
      const raw = await tokenRaw(ctx.endpoint, token, { method: "GET", path: `/dbs/${seg(database.id)}/colls/${seg(other.id)}` });
      rawForbidden(raw, "raw read of container B");
    },
  },
  {
    name: "resource tokens: listing databases and reading the database answer 403",
    async run(ctx) {
      const { database, container, token } = await permissionOn(ctx);
      rawForbidden(await tokenRaw(ctx.endpoint, token, { method: "GET", path: "/dbs" }), "raw GET /dbs");
      rawForbidden(await tokenRaw(ctx.endpoint, token, { method: "GET", path: `/dbs/${seg(database.id)}` }), "raw GET /dbs/{db}");
      // The SDK picks a token by id: key the container's token under the database id too.
      const client = tokenClient(ctx, { [container.id]: token, [database.id]: token });
      await forbidden(() => client.database(database.id).read(), "SDK read database");
    },
  },
  {
    name: "resource tokens: users and permissions requests answer 403",
    async run(ctx) {
      const { database, user, permission, token } = await permissionOn(ctx);
      const dbPath = `/dbs/${seg(database.id)}`;
      const userPath = `${dbPath}/users/${seg(user.id)}`;
      rawForbidden(await tokenRaw(ctx.endpoint, token, { method: "GET", path: `${dbPath}/users` }), "list users");
      rawForbidden(await tokenRaw(ctx.endpoint, token, { method: "GET", path: userPath }), "read user");
      rawForbidden(await tokenRaw(ctx.endpoint, token, { method: "POST", path: `${dbPath}/users`, body: { id: "intruder" } }), "create user");
      rawForbidden(await tokenRaw(ctx.endpoint, token, { method: "GET", path: `${userPath}/permissions` }), "list permissions");
      rawForbidden(await tokenRaw(ctx.endpoint, token, { method: "GET", path: `${userPath}/permissions/${seg(permission.id)}` }), "read own permission");
      rawForbidden(await tokenRaw(ctx.endpoint, token, { method: "DELETE", path: `${userPath}/permissions/${seg(permission.id)}` }), "delete own permission");
      a.status(await user.permission(permission.id).read(), 200, "the permission still exists");
    },
  },
  {
    name: "resource tokens: a document-scoped token reads that document and the container metadata, nothing else",
    async run(ctx) {
      const { database, container, token } = await permissionOn(ctx, { resource: (_, itemA) => itemA._self });
      const containerLink = `dbs/${database.id}/colls/${container.id}`;
      const client = tokenClient(ctx, { [`${containerLink}/docs/a`]: token, [containerLink]: token });
      const c = client.database(database.id).container(container.id);
      a.eq((await c.item("a", "p1").read()).resource?.n, 1, "read the document");
      a.status(await c.item("a", "p1").replace({ id: "a", pk: "p1", n: 7 }), 200, "replace the document (All)");
      a.status(await c.read(), 200, "read the container");
      const { resources: ranges } = await c.readPartitionKeyRanges().fetchAll();
      a.ok(ranges.length >= 1, "partition key ranges");
      await forbidden(() => c.item("b", "p2").read(), "read another document");
      await forbidden(() => c.items.create({ id: "c", pk: "p1" }), "create a document");
      await forbidden(() => c.items.query("SELECT * FROM r").fetchAll(), "query the container");
    },
  },
  {
    name: "resource tokens: a token whose signature was altered answers 401",
    async run(ctx) {
      const { database, container, token } = await permissionOn(ctx);
      const altered = alterSignature(token);
      const path = `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs/a`;
      const headers = { "x-ms-documentdb-partitionkey": JSON.stringify(["p1"]) };
      a.status(await tokenRaw(ctx.endpoint, token, { method: "GET", path, headers }), 200, "raw read with the token");
      a.rawError(await tokenRaw(ctx.endpoint, altered, { method: "GET", path, headers }), 401, "raw read with the altered token");
      const c = tokenClient(ctx, { [container.id]: altered }).database(database.id).container(container.id);
      await a.rejects(() => c.item("a", "p1").read(), 401, "SDK read with the altered token");
    },
  },
  {
    name: "resource tokens: deleting the permission revokes its token at once (401)",
    async run(ctx) {
      const { database, container, user, permission, token } = await permissionOn(ctx);
      const c = tokenClient(ctx, { [container.id]: token }).database(database.id).container(container.id);
      a.eq((await c.item("a", "p1").read()).resource?.n, 1, "read before the delete");
      await user.permission(permission.id).delete();
      await a.rejects(() => c.item("a", "p1").read(), 401, "read after the permission was deleted");
    },
  },
  {
    name: "resource tokens: deleting the user revokes its tokens at once (401)",
    async run(ctx) {
      const { database, container, user, token } = await permissionOn(ctx);
      const c = tokenClient(ctx, { [container.id]: token }).database(database.id).container(container.id);
      a.eq((await c.item("a", "p1").read()).resource?.n, 1, "read before the delete");
      await user.delete();
      await a.rejects(() => c.item("a", "p1").read(), 401, "read after the user was deleted");
    },
  },

  // --- Entra ID (AAD) tokens, servers of the test's own ----------------------------------------------
  aadTest("aad: --aad-tokens emulator: an emulator JWT reads the account, database and container and does item CRUD", async (ctx) => {
    const server = await ownServer(ctx, ["--aad-tokens", "emulator"]);
    await seed(ctx, server.endpoint);
    const client = aadClient(ctx, server.endpoint, emulatorJwt());
    a.status(await client.getDatabaseAccount(), 200, "read account");
    a.status(await client.database("aad").read(), 200, "read database");
    const c = client.database("aad").container("c");
    a.status(await c.read(), 200, "read container");
    a.eq((await c.item("a", "p").read()).resource?.n, 1, "read item");
    a.status(await c.items.create({ id: "b", pk: "p", n: 2 }), 201, "create item");
    const { resources } = await c.items.query("SELECT VALUE r.n FROM r").fetchAll();
    a.deepEq(resources.sort(), [1, 2], "query");
    a.status(await c.item("b", "p").delete(), 204, "delete item");
  }),
  aadTest("aad: --aad-tokens emulator: control-plane requests answer 403 with substatus 5300", async (ctx) => {
    const server = await ownServer(ctx, ["--aad-tokens", "emulator"]);
    await seed(ctx, server.endpoint);
    const client = aadClient(ctx, server.endpoint, emulatorJwt());
    const database = client.database("aad");
    await a.rejects(() => client.databases.create({ id: "other" }), 403, "create database", { substatus: 5300 });
    await a.rejects(() => database.containers.create({ id: "c2", partitionKey: { paths: ["/pk"] } }), 403, "create container", { substatus: 5300 });
    await a.rejects(() => database.container("c").delete(), 403, "delete container", { substatus: 5300 });
    await a.rejects(() => database.users.create({ id: "u" }), 403, "create user", { substatus: 5300 });
    await a.rejects(async () => {
      const { resource: offer } = await database.container("c").readOffer();
      return client.offer(offer.id).replace({ ...offer, content: { ...offer.content, offerThroughput: 500 } });
    }, 403, "replace offer", { substatus: 5300 });
  }),
  aadTest("aad: --aad-tokens emulator: a JWT signed with another key text answers 401", async (ctx) => {
    const server = await ownServer(ctx, ["--aad-tokens", "emulator"]);
    await seed(ctx, server.endpoint);
    const client = aadClient(ctx, server.endpoint, emulatorJwt({ key: "not the account key" }));
    await a.rejects(() => client.database("aad").container("c").item("a", "p").read(), 401, "read item");
  }),
  aadTest("aad: --aad-tokens emulator: an expired JWT answers 401", async (ctx) => {
    const server = await ownServer(ctx, ["--aad-tokens", "emulator"]);
    await seed(ctx, server.endpoint);
    const client = aadClient(ctx, server.endpoint, emulatorJwt({ exp: Math.floor(Date.now() / 1000) - 600 }));
    await a.rejects(() => client.database("aad").container("c").item("a", "p").read(), 401, "read item");
  }),
  aadTest("aad: --aad-readers: the reader reads and queries; its item writes answer 403 with substatus 5301", async (ctx) => {
    const server = await ownServer(ctx, ["--aad-tokens", "emulator", "--aad-readers", EMULATOR_OID]);
    await seed(ctx, server.endpoint);
    const c = aadClient(ctx, server.endpoint, emulatorJwt()).database("aad").container("c");
    a.eq((await c.item("a", "p").read()).resource?.n, 1, "read item");
    const { resources } = await c.items.query("SELECT VALUE r.id FROM r").fetchAll();
    a.deepEq(resources, ["a"], "query");
    await a.rejects(() => c.items.create({ id: "b", pk: "p" }), 403, "create item", { substatus: 5301 });
    await a.rejects(() => c.item("a", "p").replace({ id: "a", pk: "p", n: 2 }), 403, "replace item", { substatus: 5301 });
    await a.rejects(() => c.item("a", "p").delete(), 403, "delete item", { substatus: 5301 });
  }),
  aadTest("aad: a server without --aad-tokens answers 401 to an emulator JWT", async (ctx) => {
    const server = await ownServer(ctx, []);
    await seed(ctx, server.endpoint);
    const client = aadClient(ctx, server.endpoint, emulatorJwt());
    await a.rejects(() => client.database("aad").container("c").item("a", "p").read(), 401, "read item");
    a.rawError(await tokenRaw(server.endpoint, `type=aad&ver=1.0&sig=${emulatorJwt()}`, { method: "GET", path: "/dbs" }), 401, "raw GET /dbs");
  }),
  aadTest("aad: --aad-tokens any accepts a well-formed unexpired JWT whatever its signature part", async (ctx) => {
    const server = await ownServer(ctx, ["--aad-tokens", "any"]);
    await seed(ctx, server.endpoint);
    const c = aadClient(ctx, server.endpoint, emulatorJwt({ signature: b64url("any signature at all") })).database("aad").container("c");
    a.eq((await c.item("a", "p").read()).resource?.n, 1, "read item");
    a.status(await c.items.create({ id: "b", pk: "p" }), 201, "create item");
    const expired = aadClient(ctx, server.endpoint, emulatorJwt({ signature: "x", exp: Math.floor(Date.now() / 1000) - 600 }));
    await a.rejects(() => expired.database("aad").container("c").item("a", "p").read(), 401, "an expired JWT");
  }),
  aadTest("aad: --aad-tokens any: malformed AAD headers answer 401 (or 400), never 5xx", async (ctx) => {
    const server = await ownServer(ctx, ["--aad-tokens", "any"]);
    const values = [
      ["not a JWT", "not-a-jwt"],
      ["a.b.c", "a.b.c"],
      ["base64url non-JSON parts", `${b64url("{not json")}.${b64url("[1,2")}.sig`],
      ["a JSON array payload", `${b64url("{}")}.${b64url("[]")}.sig`],
      ["no exp claim", `${b64url('{"alg":"RS256"}')}.${b64url('{"oid":"x"}')}.sig`],
      ["four parts", "a.b.c.d"],
      ["empty parts", ".."],
    ];
    for (const [what, jwt] of values) {
      await expectMalformedRefused(server.endpoint, encodeURIComponent(`type=aad&ver=1.0&sig=${jwt}`), `AAD ${what}`);
    }
  }),

  // --- malformed authorization headers on the shared server -----------------------------------------
  ...MALFORMED.map(([what, auth]) => ({
    name: `malformed authorization: ${what} answers 401 (or 400) with a JSON body; the server keeps answering`,
    async run(ctx) {
      await expectMalformedRefused(ctx.endpoint, auth, what);
    },
  })),
];
