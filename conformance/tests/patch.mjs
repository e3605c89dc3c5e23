// Partial document update (item.patch): every operation, the documented edge cases, conditions,
// preconditions, and what a patch must leave unchanged when it is refused.
import { ChangeFeedStartFrom } from "@azure/cosmos";
import * as a from "../lib/assert.mjs";

const PRODUCT = {
  id: "bike",
  pk: "road",
  name: "R-410 Road Bicycle",
  price: 455.95,
  inventory: { quantity: 15 },
  used: false,
  tags: ["r-series"],
};

// The client's properties of a document, without the system properties.
function clientProperties(doc) {
  return Object.fromEntries(Object.entries(doc).filter(([key]) => !key.startsWith("_")));
}

async function withProduct(ctx, definition = {}) {
  const { container } = await ctx.container(definition);
  const created = (await container.items.create(PRODUCT)).resource;
  return { container, created, item: container.item(PRODUCT.id, PRODUCT.pk) };
}

// A refused patch answers `status` and changes nothing.
async function refused(item, created, body, status, what) {
  await a.rejects(() => item.patch(body), status, what);
  const after = (await item.read()).resource;
  a.eq(after._etag, created._etag, `${what}: the document changed`);
}

export default [
  {
    name: "the documented example (add, remove, set, incr, add to the end, move)",
    async run(ctx) {
      const { created, item } = await withProduct(ctx);
      const response = await item.patch([
        { op: "add", path: "/color", value: "silver" },
        { op: "remove", path: "/used" },
        { op: "set", path: "/price", value: 355.45 },
        { op: "incr", path: "/inventory/quantity", value: 10 },
        { op: "add", path: "/tags/-", value: "featured-bikes" },
        { op: "move", from: "/color", path: "/inventory/color" },
      ]);
      a.status(response, 200, "patch");
      a.charge(response.headers, "patch");
      a.ok(a.header(response.headers, "x-ms-session-token"), "patch: x-ms-session-token header missing");
      a.deepEq(clientProperties(response.resource), {
        id: "bike",
        pk: "road",
        name: "R-410 Road Bicycle",
        price: 355.45,
        inventory: { quantity: 25, color: "silver" },
        tags: ["r-series", "featured-bikes"],
      }, "patched document");
      a.notEq(response.resource._etag, created._etag, "_etag after patch");
      a.eq(a.header(response.headers, "etag"), response.resource._etag, "etag header equals _etag");
      a.eq(response.resource._rid, created._rid, "_rid after patch");
      a.deepEq((await item.read()).resource, response.resource, "read after patch");
    },
  },
  {
    name: "add inserts into arrays and replaces existing properties; set replaces array elements",
    async run(ctx) {
      const { item } = await withProduct(ctx);
      const { resource } = await item.patch([
        { op: "add", path: "/tags/0", value: "first" },
        { op: "add", path: "/tags/2", value: "last" },
        { op: "add", path: "/name", value: "renamed" },
        { op: "set", path: "/tags/1", value: "middle" },
      ]);
      a.deepEq(resource.tags, ["first", "middle", "last"], "tags");
      a.eq(resource.name, "renamed", "add on an existing property replaces it");
    },
  },
  {
    name: "replace and remove work on existing paths and array elements",
    async run(ctx) {
      const { item } = await withProduct(ctx);
      const { resource } = await item.patch([
        { op: "replace", path: "/inventory/quantity", value: 3 },
        { op: "add", path: "/tags/-", value: "b" },
        { op: "remove", path: "/tags/0" },
        { op: "replace", path: "/tags/0", value: "c" },
      ]);
      a.eq(resource.inventory.quantity, 3, "replaced value");
      a.deepEq(resource.tags, ["c"], "tags after remove and replace");
    },
  },
  {
    name: "incr keeps integers integral, adds floats, and creates a missing property",
    async run(ctx) {
      const { item } = await withProduct(ctx);
      const { resource } = await item.patch([
        { op: "incr", path: "/inventory/quantity", value: -20 },
        { op: "incr", path: "/price", value: 0.05 },
        { op: "incr", path: "/views", value: 7 },
      ]);
      a.eq(resource.inventory.quantity, -5, "integer incr");
      a.ok(Math.abs(resource.price - 456) < 1e-9, `float incr: got ${resource.price}`);
      a.eq(resource.views, 7, "incr of a missing property creates it");
    },
  },
  {
    name: "property names with '/' and '~' are escaped as ~1 and ~0",
    async run(ctx) {
      const { item } = await withProduct(ctx);
      const { resource } = await item.patch([
        { op: "add", path: "/a~1b", value: 1 },
        { op: "add", path: "/c~0d", value: 2 },
      ]);
      a.eq(resource["a/b"], 1, "a/b");
      a.eq(resource["c~d"], 2, "c~d");
    },
  },
  {
    name: "operations that cannot apply answer 400 and change nothing",
    async run(ctx) {
      const { created, item } = await withProduct(ctx);
      await refused(item, created, [{ op: "replace", path: "/missing", value: 1 }], 400, "replace of a missing path");
      await refused(item, created, [{ op: "remove", path: "/missing" }], 400, "remove of a missing path");
      await refused(item, created, [{ op: "add", path: "/no/such/parent", value: 1 }], 400, "add below a missing parent");
      await refused(item, created, [{ op: "add", path: "/tags/5", value: "x" }], 400, "add past the end of an array");
      await refused(item, created, [{ op: "incr", path: "/name", value: 1 }], 400, "incr of a string");
      await refused(item, created, [{ op: "move", from: "/missing", path: "/x" }], 400, "move from a missing path");
      // One failing operation after good ones refuses them all.
      await refused(item, created, [
        { op: "set", path: "/price", value: 1 },
        { op: "remove", path: "/missing" },
      ], 400, "a failing second operation");
    },
  },
  {
    name: "malformed requests, more than 10 operations, the id and the partition key answer 400",
    async run(ctx) {
      const { created, item } = await withProduct(ctx);
      const eleven = Array.from({ length: 11 }, (_, i) => ({ op: "set", path: `/p${i}`, value: i }));
      await refused(item, created, eleven, 400, "11 operations");
      await refused(item, created, [{ op: "frobnicate", path: "/x", value: 1 }], 400, "an unknown op");
      await refused(item, created, [{ op: "set", path: "x", value: 1 }], 400, "a path without '/'");
      await refused(item, created, [{ op: "set", path: "/id", value: "other" }], 400, "patching the id");
      await refused(item, created, [{ op: "set", path: "/pk", value: "other" }], 400, "patching the partition key");
      await refused(item, created, [{ op: "remove", path: "/_etag" }], 400, "patching a system property");
      const ten = Array.from({ length: 10 }, (_, i) => ({ op: "set", path: `/p${i}`, value: i }));
      a.eq((await item.patch(ten)).resource.p9, 9, "10 operations are allowed");
    },
  },
  {
    name: "a missing item answers 404",
    async run(ctx) {
      const { container } = await withProduct(ctx);
      await a.rejects(() => container.item("nope", "road").patch([{ op: "set", path: "/a", value: 1 }]), 404, "patch of a missing item");
    },
  },
  {
    name: "a condition that holds applies; one that does not answers 412 and changes nothing",
    async run(ctx) {
      const { created, item } = await withProduct(ctx);
      await refused(item, created, {
        condition: "from c where c.inventory.quantity > 100",
        operations: [{ op: "set", path: "/price", value: 1 }],
      }, 412, "a false condition");
      const { resource } = await item.patch({
        condition: "FROM products p WHERE p.used = false AND ARRAY_CONTAINS(p.tags, 'r-series')",
        operations: [{ op: "set", path: "/price", value: 1 }],
      });
      a.eq(resource.price, 1, "patched under a true condition");
      await a.rejects(() => item.patch({ condition: "from c where", operations: [{ op: "set", path: "/a", value: 1 }] }),
        400, "a condition that is not SQL");
    },
  },
  {
    name: "If-Match with a stale etag answers 412",
    async run(ctx) {
      const { created, item } = await withProduct(ctx);
      const first = await item.patch([{ op: "set", path: "/price", value: 1 }], {
        accessCondition: { type: "IfMatch", condition: created._etag },
      });
      a.status(first, 200, "patch with a current etag");
      await a.rejects(() => item.patch([{ op: "set", path: "/price", value: 2 }], {
        accessCondition: { type: "IfMatch", condition: created._etag },
      }), 412, "patch with a stale etag");
      a.eq((await item.read()).resource.price, 1, "the stale patch changed nothing");
    },
  },
  {
    name: "queries, the change feed and unique keys see the patched document",
    async run(ctx) {
      const { container, item } = await withProduct(ctx, { uniqueKeyPolicy: { uniqueKeys: [{ paths: ["/sku"] }] } });
      await container.items.create({ id: "other", pk: "road", sku: "taken" });
      await item.patch([{ op: "set", path: "/price", value: 99 }, { op: "add", path: "/sku", value: "mine" }]);
      const { resources } = await container.items.query("SELECT VALUE c.id FROM c WHERE c.price = 99").fetchAll();
      a.deepEq(resources, ["bike"], "query by the patched value");
      const { resources: old } = await container.items.query("SELECT VALUE c.id FROM c WHERE c.price = 455.95").fetchAll();
      a.deepEq(old, [], "query by the old value");
      await a.rejects(() => item.patch([{ op: "set", path: "/sku", value: "taken" }]), 409, "a patch that breaks a unique key");
      const iterator = container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
      const seen = [];
      while (iterator.hasMoreResults) {
        const page = await iterator.readNext();
        if (page.statusCode === 304) break;
        seen.push(...page.result);
      }
      const bike = seen.find((doc) => doc.id === "bike");
      a.ok(bike, "the change feed lists the patched document");
      a.eq(bike.price, 99, "the change feed shows the patched version");
    },
  },
];
