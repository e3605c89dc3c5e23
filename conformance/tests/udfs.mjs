// User-defined functions in queries (udf.name(args)): in filters, projections, aggregates and
// cross-partition queries with ORDER BY and continuations, through the SDK's query pipeline; the
// service's argument and result semantics (undefined is passed and dropped, numbers are doubles);
// and the errors of a missing UDF, one that throws, and one that never returns.
import * as a from "../lib/assert.mjs";

const tax = "function tax(income) { if (income === undefined) return 'no income'; return income < 1000 ? income * 0.1 : income * 0.2; }";

async function seeded(ctx, extra = {}) {
  const { container } = await ctx.container(extra);
  await container.scripts.userDefinedFunctions.create({ id: "tax", body: tax });
  for (let i = 0; i < 20; i++) await container.items.create({ id: `d${i}`, pk: `p${i % 4}`, income: i * 100 });
  return container;
}

async function all(container, query, options = {}) {
  const { resources } = await container.items.query(query, options).fetchAll();
  return resources;
}

export default [
  {
    name: "in a filter, a projection and an aggregate, in one partition and across partitions",
    async run(ctx) {
      const container = await seeded(ctx);
      a.deepEq(await all(container, "SELECT VALUE udf.tax(c.income) FROM c WHERE c.pk = 'p1'"), [10, 50, 90, 260, 340], "VALUE in one partition");
      const rich = await all(container, "SELECT VALUE c.id FROM c WHERE udf.tax(c.income) > 250");
      a.deepEq(rich.sort(), ["d13", "d14", "d15", "d16", "d17", "d18", "d19"], "filter across partitions");
      const projected = await all(container, "SELECT c.id, udf.tax(c.income) AS owed, udf.tax(c.income) FROM c WHERE c.id = 'd3'");
      a.deepEq(projected, [{ id: "d3", owed: 30, $1: 30 }], "aliased and unnamed");
      a.deepEq(await all(container, "SELECT VALUE SUM(udf.tax(c.income)) FROM c"), [3350], "inside an aggregate");
    },
  },
  {
    name: "cross-partition ORDER BY and TOP with a UDF projection, page by page, on several physical partitions",
    async run(ctx) {
      const container = await seeded(ctx, { throughput: 40000 });
      const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
      a.ok(ranges.length > 1, `several physical partitions (${ranges.length})`);
      const iterator = container.items.query("SELECT c.id, udf.tax(c.income) AS owed FROM c ORDER BY c.income DESC", { maxItemCount: 3 });
      const rows = [];
      while (iterator.hasMoreResults()) rows.push(...(await iterator.fetchNext()).resources);
      a.eq(rows.length, 20, "every row");
      a.deepEq(rows.slice(0, 3), [{ id: "d19", owed: 380 }, { id: "d18", owed: 360 }, { id: "d17", owed: 340 }], "in order");
      const top = await all(container, "SELECT TOP 2 VALUE udf.tax(c.income) FROM c WHERE udf.tax(c.income) < 100 ORDER BY c.income");
      a.deepEq(top, [0, 10], "TOP with a filter");
      await a.rejects(all(container, "SELECT c.id FROM c ORDER BY udf.tax(c.income)"), 400, "ORDER BY a UDF, as the service: not a document path");
    },
  },
  {
    name: "undefined is passed as undefined and a result of undefined is dropped; numbers are doubles; null stays null",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.scripts.userDefinedFunctions.create({ id: "kind", body: "function kind(v) { return v === undefined ? 'undefined' : v === null ? 'null' : typeof v; }" });
      await container.scripts.userDefinedFunctions.create({ id: "nothing", body: "function nothing() { }" });
      await container.scripts.userDefinedFunctions.create({ id: "half", body: "function half(n) { return n / 2; }" });
      await container.items.create({ id: "x", pk: "p", n: 7, empty: null, list: [1, 2] });
      const [row] = await all(container, "SELECT udf.kind(c.missing) AS a, udf.kind(c.empty) AS b, udf.kind(c.n) AS c, " +
        "udf.kind(c.list) AS d, udf.nothing() AS e, udf.half(c.n) AS f FROM c");
      a.deepEq(row, { a: "undefined", b: "null", c: "number", d: "object", f: 3.5 }, "semantics");
    },
  },
  {
    name: "a missing UDF and one that throws are 400; the server goes on",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "x", pk: "p" });
      await container.scripts.userDefinedFunctions.create({ id: "boom", body: "function boom() { throw new Error('no input'); }" });
      const missing = await a.rejects(all(container, "SELECT VALUE udf.absent(c.id) FROM c"), 400, "missing");
      a.match(missing.message, /udf\.absent/, "names it");
      const thrown = await a.rejects(all(container, "SELECT VALUE udf.boom(c.id) FROM c"), 400, "throws");
      a.match(thrown.message, /Error: no input/, "its message");
      a.deepEq(await all(container, "SELECT VALUE c.id FROM c"), ["x"], "then a plain query");
    },
  },
  {
    name: "a UDF that never returns is stopped at the query's time limit (408)",
    requires: ["managed"],
    async run(ctx) {
      const { client } = await ctx.ownServer(["--query-time-limit", "1"]);
      const { database } = await client.databases.create({ id: ctx.uid("db") });
      const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
      await container.items.create({ id: "x", pk: "p" });
      await container.scripts.userDefinedFunctions.create({ id: "spin", body: "function spin() { for (;;) {} }" });
      const started = Date.now();
      await a.rejects(all(container, "SELECT VALUE udf.spin() FROM c", { partitionKey: "p" }), 408, "stopped");
      a.ok(Date.now() - started < 5000, "near the limit");
      a.deepEq(await all(container, "SELECT VALUE c.id FROM c", { partitionKey: "p" }), ["x"], "the server goes on");
    },
  },
];
