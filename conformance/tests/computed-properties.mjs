// Computed properties (container computedProperties): a property a query names on the root document,
// evaluated from the document when the query runs, usable in filters, projections and ORDER BY,
// never stored and never part of SELECT *; definitions are validated when the container is created.
import * as a from "../lib/assert.mjs";

const lowerName = { name: "cp_lower", query: "SELECT VALUE LOWER(c.name) FROM c" };
const total = { name: "cp_total", query: "SELECT VALUE c.price * c.quantity FROM c" };

async function seeded(ctx, extra = {}) {
  const { container } = await ctx.container({ computedProperties: [lowerName, total], ...extra });
  const items = [
    { id: "1", pk: "p", name: "Widget", price: 2, quantity: 5 },
    { id: "2", pk: "p", name: "gadget", price: 10, quantity: 1 },
    { id: "3", pk: "q", name: "WIDGET", price: 1, quantity: 1 },
  ];
  for (const item of items) await container.items.create(item);
  return container;
}

const all = async (container, query) => (await container.items.query(query).fetchAll()).resources;

export default [
  {
    name: "computed properties: filter, projection and ORDER BY evaluate the definition; SELECT * leaves them out",
    async run(ctx) {
      const container = await seeded(ctx);
      a.deepEq((await all(container, "SELECT VALUE c.id FROM c WHERE c.cp_lower = 'widget'")).sort(), ["1", "3"], "filter");
      a.deepEq(await all(container, "SELECT c.id, c.cp_total FROM c WHERE c.id = '1'"), [{ id: "1", cp_total: 10 }], "projection");
      a.deepEq(await all(container, "SELECT VALUE c.id FROM c ORDER BY c.cp_total DESC"), ["1", "2", "3"], "ORDER BY, cross-partition");
      a.deepEq(await all(container, "SELECT VALUE r.cp_lower FROM root r WHERE r.id = '2'"), ["gadget"], "another root alias");
      const [stored] = await all(container, "SELECT * FROM c WHERE c.id = '1'");
      a.eq(stored.cp_lower, undefined, "SELECT * has no computed property");
      const { resource } = await container.item("1", "p").read();
      a.eq(resource.cp_total, undefined, "a point read has none either");
      const { resource: definition } = await container.read();
      a.deepEq(definition.computedProperties, [lowerName, total], "the definition is kept");
    },
  },
  {
    name: "computed properties: invalid definitions answer 400",
    async run(ctx) {
      const database = await ctx.database();
      const cases = [
        ["no VALUE", [{ name: "x", query: "SELECT LOWER(c.name) FROM c" }]],
        ["a WHERE clause", [{ name: "x", query: "SELECT VALUE c.a FROM c WHERE c.a > 1" }]],
        ["a JOIN", [{ name: "x", query: "SELECT VALUE t FROM c JOIN t IN c.tags" }]],
        ["a system property name", [{ name: "id", query: "SELECT VALUE c.a FROM c" }]],
        ["a name used twice", [{ name: "x", query: "SELECT VALUE c.a FROM c" }, { name: "x", query: "SELECT VALUE c.b FROM c" }]],
        ["another computed property", [{ name: "x", query: "SELECT VALUE c.a FROM c" }, { name: "y", query: "SELECT VALUE c.x FROM c" }]],
        ["a syntax error", [{ name: "x", query: "SELECT VALUE FROM c" }]],
        ["21 properties", Array.from({ length: 21 }, (_, i) => ({ name: `p${i}`, query: "SELECT VALUE c.a FROM c" }))],
      ];
      for (const [what, computedProperties] of cases) {
        const response = await ctx.raw({
          method: "POST",
          path: `/dbs/${encodeURIComponent(database.id)}/colls`,
          body: { id: ctx.uid("c"), partitionKey: { paths: ["/pk"] }, computedProperties },
        });
        a.rawError(response, 400, what);
      }
    },
  },
];
