// Delete all items by partition key (container.deleteAllItemsForPartitionKey): one logical
// partition goes, the others stay, and the all-versions change feed records each delete.
import { ChangeFeedMode, ChangeFeedPolicy, ChangeFeedRetentionTimeSpan, ChangeFeedStartFrom } from "@azure/cosmos";
import * as a from "../lib/assert.mjs";

async function ids(container, query) {
  const { resources } = await container.items.query(query).fetchAll();
  return resources.sort();
}

export default [
  {
    name: "deleting by partition key removes that partition's items and no others",
    async run(ctx) {
      const { container } = await ctx.container();
      for (const [id, pk] of [["1", "WA"], ["2", "WA"], ["3", "WA"], ["4", "IL"], ["5", "IL"]]) {
        await container.items.create({ id, pk, city: `city ${id}` });
      }
      const response = await container.deleteAllItemsForPartitionKey("WA");
      a.ok(response.statusCode === 200, `status: expected 200, got ${response.statusCode}`);
      a.charge(response.headers, "delete by partition key");
      a.deepEq(await ids(container, "SELECT VALUE c.id FROM c"), ["4", "5"], "items left");
      await a.rejects(() => container.item("1", "WA").read(), 404, "read of a deleted item");
      a.eq((await container.item("4", "IL").read()).resource.city, "city 4", "an item of another partition");
      // The partition can be written again.
      a.status(await container.items.create({ id: "1", pk: "WA" }), 201, "create after the delete");
    },
  },
  {
    name: "deleting by partition key takes a hierarchical prefix",
    async run(ctx) {
      const { container } = await ctx.container({
        partitionKey: { paths: ["/tenant", "/user"], kind: "MultiHash", version: 2 },
      });
      for (const [id, tenant, user] of [["1", "a", "x"], ["2", "a", "y"], ["3", "b", "x"]]) {
        await container.items.create({ id, tenant, user });
      }
      await container.deleteAllItemsForPartitionKey(["a"]);
      a.deepEq(await ids(container, "SELECT VALUE c.id FROM c"), ["3"], "items left after deleting the prefix");
      await container.deleteAllItemsForPartitionKey(["b", "x"]);
      a.deepEq(await ids(container, "SELECT VALUE c.id FROM c"), [], "items left after deleting a full key");
    },
  },
  {
    name: "deleting an empty partition succeeds; a missing container is 404",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const response = await container.deleteAllItemsForPartitionKey("nobody");
      a.ok(response.statusCode === 200, `status: expected 200, got ${response.statusCode}`);
      await a.rejects(() => database.container("missing").deleteAllItemsForPartitionKey("x"), 404, "missing container");
    },
  },
  {
    name: "the all-versions change feed records each delete",
    async run(ctx) {
      const { container } = await ctx.container({
        changeFeedPolicy: new ChangeFeedPolicy(ChangeFeedRetentionTimeSpan.fromMinutes(10)),
      });
      const iterator = container.items.getChangeFeedIterator({
        changeFeedStartFrom: ChangeFeedStartFrom.Now(),
        changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
      });
      await iterator.readNext();  // takes the starting point
      await container.items.create({ id: "1", pk: "WA" });
      await container.items.create({ id: "2", pk: "WA" });
      await container.deleteAllItemsForPartitionKey("WA");
      const changes = [];
      for (let i = 0; i < 5 && iterator.hasMoreResults; ++i) {
        const page = await iterator.readNext();
        if (page.statusCode === 304) break;
        changes.push(...page.result);
      }
      const deletes = changes.filter((change) => change.metadata?.operationType === "delete");
      a.deepEq(deletes.map((change) => change.metadata.id).sort(), ["1", "2"], "deleted ids in the change feed");
    },
  },
];
