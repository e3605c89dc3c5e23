// Queries through the SDK (container.items.query, databases.query, containers.query): parameters,
// filters, subqueries, JOIN, DISTINCT, GROUP BY, aggregates, ORDER BY, TOP, OFFSET LIMIT, LIKE,
// undefined versus null, paging with maxItemCount, continuation tokens, request charges and
// query metrics. Expected results follow the NoSQL query reference on learn.microsoft.com
// (articles/cosmos-db/nosql/query/*.md); every data set is created by the test that uses it.
import * as a from "../lib/assert.mjs";
import { seg } from "../lib/raw.mjs";

// ---------------------------------------------------------------------------------------------
// Helpers (kept in this file: the suite's lib/ is shared).

async function seed(container, docs) {
  for (const doc of docs) await container.items.create(doc);
}

// Every row of a query through fetchAll().
async function queryAll(container, query, options = {}) {
  const response = await container.items.query(query, { ...options }).fetchAll();
  a.isType(response.resources, "array", `fetchAll resources of ${show(query)}`);
  return response.resources;
}

// Every page of a query through fetchNext() until hasMoreResults() is false.
async function queryPages(container, query, options = {}) {
  const iterator = container.items.query(query, { ...options });
  const pages = [];
  while (iterator.hasMoreResults()) {
    const page = await iterator.fetchNext();
    pages.push(page);
    if (pages.length > 200) a.fail(`${show(query)}: more than 200 pages, the iterator does not end`);
  }
  return pages;
}

const rowsOf = (pages) => pages.flatMap((p) => p.resources ?? []);

function show(query) {
  return JSON.stringify(typeof query === "string" ? query : query.query);
}

// Order-insensitive comparison of result rows.
function sameRows(actual, expected, what) {
  const canon = (rows) => rows.map((r) => JSON.stringify(sortKeys(r))).sort();
  a.deepEq(canon(actual), canon(expected), what);
}

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys(value[k])]));
  }
  return value;
}

// Checks paged results: no page larger than maxItemCount, no row twice, exactly the expected rows
// (in order when ordered is set).
function checkPaged(pages, expected, maxItemCount, what, { ordered = false, key = (r) => JSON.stringify(sortKeys(r)) } = {}) {
  for (const [i, page] of pages.entries()) {
    const n = (page.resources ?? []).length;
    a.ok(n <= maxItemCount, `${what}: page ${i + 1} has ${n} rows, more than maxItemCount ${maxItemCount}`);
  }
  const rows = rowsOf(pages);
  const keys = rows.map(key);
  const dup = keys.find((k, i) => keys.indexOf(k) !== i);
  a.ok(dup === undefined, `${what}: row ${dup} returned twice`);
  if (ordered) a.deepEq(rows, expected, `${what}: rows in order`);
  else sameRows(rows, expected, `${what}: rows`);
  a.eq(pages.at(-1)?.hasMoreResults, false, `${what}: hasMoreResults of the last page`);
}

const pad2 = (i) => String(i).padStart(2, "0");

// n items d00..d(n-1) spread over partitions a, b, c: n is the index, cat one of four groups.
function numbered(n, extra = () => ({})) {
  return Array.from({ length: n }, (_, i) => ({
    id: `d${pad2(i)}`,
    pk: ["a", "b", "c"][i % 3],
    n: i,
    cat: `k${i % 4}`,
    name: `name-${String.fromCharCode(97 + ((i * 7) % 26))}${pad2(i)}`,
    ...extra(i),
  }));
}

function docsPath(database, container) {
  return `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`;
}

// A raw query POST: x-ms-documentdb-isquery with a application/query+json body.
function rawQuery(ctx, database, container, querySpec, { partitionKey, headers = {} } = {}) {
  return ctx.raw({
    method: "POST",
    path: docsPath(database, container),
    headers: {
      "x-ms-documentdb-isquery": "True",
      "content-type": "application/query+json",
      "x-ms-documentdb-partitionkey": partitionKey === undefined ? undefined : JSON.stringify([partitionKey]),
      ...headers,
    },
    body: typeof querySpec === "string" ? { query: querySpec, parameters: [] } : querySpec,
  });
}

// "k1=v1;k2=v2;..." → {k1: "v1", ...}
function parseMetrics(text, what) {
  a.match(text, /^[A-Za-z]+=[^;=]+(;[A-Za-z]+=[^;=]+)*;?$/, `${what}: x-ms-documentdb-query-metrics format`);
  return Object.fromEntries(
    text
      .split(";")
      .filter((s) => s.length > 0)
      .map((pair) => pair.split("=")),
  );
}

// ---------------------------------------------------------------------------------------------

export default [
  {
    name: "after upserts and replaces, filters and ORDER BY see each item's current values only",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, [
        { id: "r1", pk: "p1", kind: "a", n: 1, tags: ["x", "y"], gone: true },
        { id: "r2", pk: "p1", kind: "a", n: 2, tags: ["y"] },
      ]);
      // Some values change, some stay, one property goes and another comes.
      await container.items.upsert({ id: "r1", pk: "p1", kind: "a", n: 5, tags: ["y", "z"], fresh: 1 });
      await container.item("r2", "p1").replace({ id: "r2", pk: "p1", kind: "b", n: 2, tags: ["y"] });
      const ids = async (query) => (await queryAll(container, query)).sort();
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.n = 1"), [], "old value of a changed property");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.n = 5"), ["r1"], "new value");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.n = 2"), ["r2"], "unchanged value");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.kind = 'a'"), ["r1"], "value kept by one item only");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE IS_DEFINED(c.gone)"), [], "removed property");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.fresh = 1"), ["r1"], "added property");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(c.tags, 'x')"), [], "removed array element");
      a.deepEq(await ids("SELECT VALUE c.id FROM c JOIN t IN c.tags WHERE t = 'y'"), ["r1", "r2"], "kept array element");
      a.deepEq(await queryAll(container, "SELECT VALUE c.n FROM c ORDER BY c.n DESC"), [5, 2], "ORDER BY the new values");
    },
  },
  {
    name: "SELECT * returns the stored items with their system properties",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, [
        { id: "x1", pk: "p1", v: 1, nested: { list: [1, "two", null, true] } },
        { id: "x2", pk: "p2", v: 2 },
      ]);
      const rows = await queryAll(container, "SELECT * FROM c");
      a.deepEq(rows.map((r) => r.id).sort(), ["x1", "x2"], "ids");
      const x1 = rows.find((r) => r.id === "x1");
      a.deepEq(x1.nested, { list: [1, "two", null, true] }, "nested value");
      for (const row of rows) {
        a.isType(row._rid, "string", `${row.id}: _rid`);
        a.isType(row._self, "string", `${row.id}: _self`);
        a.match(row._etag, /^".+"$/, `${row.id}: _etag`);
        a.ok(Number.isInteger(row._ts), `${row.id}: _ts should be an integer`);
      }
      const read = (await container.item("x1", "p1").read()).resource;
      a.deepEq(x1, read, "queried item equals the read item");
    },
  },
  {
    name: "parameters of every JSON kind: string, number, boolean, null, array, object",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, [
        { id: "a", pk: "p1", s: "x", n: 1, b: true, z: null, arr: [1, 2], obj: { k: "v", n: 1 } },
        { id: "b", pk: "p2", s: "y", n: 2.5, b: false, z: 0, arr: [3], obj: { k: "w", n: 2 } },
        { id: "c", pk: "p1", s: "x", n: 3, b: true, arr: [1, 2], obj: { k: "v", n: 1 } },
      ]);
      const ids = async (query, parameters) =>
        (await queryAll(container, { query, parameters })).sort();
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.s = @s", [{ name: "@s", value: "x" }]), ["a", "c"], "string");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.n = @n", [{ name: "@n", value: 2.5 }]), ["b"], "number");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.n > @n", [{ name: "@n", value: 1 }]), ["b", "c"], "number range");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.b = @b", [{ name: "@b", value: false }]), ["b"], "boolean");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.z = @z", [{ name: "@z", value: null }]), ["a"],
        "null (a missing property is not null)");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.arr = @arr", [{ name: "@arr", value: [1, 2] }]), ["a", "c"], "array equality");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.obj = @obj", [{ name: "@obj", value: { k: "v", n: 1 } }]), ["a", "c"],
        "object equality");
      a.deepEq(
        await ids("SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(@ids, c.id)", [{ name: "@ids", value: ["a", "c", "zz"] }]),
        ["a", "c"],
        "ARRAY_CONTAINS(@arr, c.id)",
      );
      a.deepEq(
        await ids("SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(@objs, c.obj)", [{ name: "@objs", value: [{ k: "w", n: 2 }] }]),
        ["b"],
        "ARRAY_CONTAINS of an object parameter",
      );
      a.deepEq(
        await ids("SELECT VALUE c.id FROM c WHERE c.s = @s AND c.n >= @min", [
          { name: "@s", value: "x" },
          { name: "@min", value: 2 },
        ]),
        ["c"],
        "two parameters",
      );
      const echoed = await queryAll(container, {
        query: "SELECT VALUE [@s, @n, @b, @z, @arr, @obj] FROM c WHERE c.id = 'a'",
        parameters: [
          { name: "@s", value: "héllo" },
          { name: "@n", value: -7.25 },
          { name: "@b", value: true },
          { name: "@z", value: null },
          { name: "@arr", value: [1, "two", [3]] },
          { name: "@obj", value: { deep: { x: [null] } } },
        ],
      });
      a.deepEq(echoed, [["héllo", -7.25, true, null, [1, "two", [3]], { deep: { x: [null] } }]], "parameters projected back");
    },
  },
  {
    name: "IN and NOT IN lists of strings and numbers; BETWEEN is inclusive",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, numbered(8));
      const ids = async (query) => (await queryAll(container, query)).sort();
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.n IN (1, 3, 5, 99)"), ["d01", "d03", "d05"], "IN numbers");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.id IN ('d02', 'd06', 'nope')"), ["d02", "d06"], "IN strings");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.n NOT IN (0, 1, 2, 3, 4)"), ["d05", "d06", "d07"], "NOT IN");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.n IN ('1', '3')"), [], "IN with values of another type");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.n BETWEEN 2 AND 4"), ["d02", "d03", "d04"], "BETWEEN");
    },
  },
  {
    name: "comparing two properties of the same item; different types never compare",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, [
        { id: "gt", pk: "p1", x: 5, y: 3 },
        { id: "eq", pk: "p2", x: 4, y: 4 },
        { id: "lt", pk: "p1", x: 1, y: 2 },
        { id: "str", pk: "p3", x: "b", y: "a" },
        { id: "mixed", pk: "p3", x: 5, y: "3" },
        { id: "noy", pk: "p2", x: 5 },
      ]);
      const ids = async (query) => (await queryAll(container, query)).sort();
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.x > c.y"), ["gt", "str"], "x > y");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.x = c.y"), ["eq"], "x = y");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.x <= c.y"), ["eq", "lt"], "x <= y");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.x != c.y"), ["gt", "lt", "str"], "x != y");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE NOT (c.x > c.y)"), ["eq", "lt"], "NOT (x > y)");
    },
  },
  {
    name: "projections: aliases, nested paths, VALUE object and array literals, arithmetic",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, [
        { id: "p", pk: "p1", n: 4, nested: { x: "deep", list: [10, 20] } },
        { id: "q", pk: "p2", n: 5, nested: { x: "other", list: [] } },
      ]);
      sameRows(
        await queryAll(container, "SELECT c.id, c.nested.x FROM c"),
        [{ id: "p", x: "deep" }, { id: "q", x: "other" }],
        "nested path keeps the last property name",
      );
      sameRows(
        await queryAll(container, "SELECT c.id AS ident, c.n * 2 AS twice, c.nested.list[1] AS second FROM c"),
        [{ ident: "p", twice: 8, second: 20 }, { ident: "q", twice: 10 }],
        "aliases, arithmetic, array index (out of range is undefined and omitted)",
      );
      sameRows(
        await queryAll(container, "SELECT VALUE {\"k\": c.id, \"half\": c.n / 2} FROM c"),
        [{ k: "p", half: 2 }, { k: "q", half: 2.5 }],
        "VALUE object literal",
      );
      sameRows(await queryAll(container, "SELECT VALUE [c.id, c.n] FROM c"), [["p", 4], ["q", 5]], "VALUE array literal");
      a.deepEq(await queryAll(container, "SELECT VALUE c.n % 3 FROM c WHERE c.id = 'q'"), [2], "modulo");
    },
  },
  {
    name: "undefined versus null: SELECT c.missing gives {}, SELECT VALUE c.missing gives no rows, IS_DEFINED",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, [
        { id: "hasnull", pk: "p1", v: null },
        { id: "hasvalue", pk: "p2", v: 7 },
        { id: "nov", pk: "p3" },
      ]);
      a.deepEq(await queryAll(container, "SELECT c.missing FROM c"), [{}, {}, {}], "SELECT c.missing");
      a.deepEq(await queryAll(container, "SELECT VALUE c.missing FROM c"), [], "SELECT VALUE c.missing");
      sameRows(await queryAll(container, "SELECT c.v FROM c"), [{ v: null }, { v: 7 }, {}], "SELECT c.v");
      sameRows(await queryAll(container, "SELECT VALUE c.v FROM c"), [null, 7], "SELECT VALUE c.v");
      const ids = async (query) => (await queryAll(container, query)).sort();
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE IS_DEFINED(c.v)"), ["hasnull", "hasvalue"], "IS_DEFINED");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE NOT IS_DEFINED(c.v)"), ["nov"], "NOT IS_DEFINED");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE IS_NULL(c.v)"), ["hasnull"], "IS_NULL");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE c.v = null"), ["hasnull"], "= null");
      a.deepEq(await ids("SELECT VALUE c.id FROM c WHERE IS_DEFINED(c.v) AND NOT IS_NULL(c.v)"), ["hasvalue"],
        "defined and not null");
      sameRows(
        await queryAll(container, "SELECT c.id, c.missing + 1 AS m, IS_DEFINED(c.missing) AS d FROM c WHERE c.id = 'nov'"),
        [{ id: "nov", d: false }],
        "an undefined expression is left out of the projected object",
      );
    },
  },
  {
    name: "EXISTS and ARRAY subqueries",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, [
        { id: "r", pk: "p1", tags: ["red", "blue"] },
        { id: "g", pk: "p2", tags: ["green"] },
        { id: "rr", pk: "p1", tags: ["red", "red", "green"] },
        { id: "none", pk: "p3", tags: [] },
      ]);
      a.deepEq(
        (await queryAll(container, "SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = 'red')")).sort(),
        ["r", "rr"],
        "EXISTS in WHERE",
      );
      a.deepEq(
        (await queryAll(container, "SELECT VALUE c.id FROM c WHERE NOT EXISTS(SELECT VALUE t FROM t IN c.tags)")).sort(),
        ["none"],
        "NOT EXISTS over an empty array",
      );
      sameRows(
        await queryAll(container, "SELECT c.id, EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = 'green') AS hasGreen FROM c"),
        [
          { id: "r", hasGreen: false },
          { id: "g", hasGreen: true },
          { id: "rr", hasGreen: true },
          { id: "none", hasGreen: false },
        ],
        "EXISTS projected",
      );
      sameRows(
        await queryAll(container, "SELECT c.id, ARRAY(SELECT VALUE UPPER(t) FROM t IN c.tags WHERE t != 'blue') AS up FROM c"),
        [
          { id: "r", up: ["RED"] },
          { id: "g", up: ["GREEN"] },
          { id: "rr", up: ["RED", "RED", "GREEN"] },
          { id: "none", up: [] },
        ],
        "ARRAY subquery keeps order and duplicates; empty for no rows",
      );
      sameRows(
        await queryAll(container, "SELECT c.id, (SELECT VALUE COUNT(1) FROM t IN c.tags) AS n FROM c"),
        [{ id: "r", n: 2 }, { id: "g", n: 1 }, { id: "rr", n: 3 }, { id: "none", n: 0 }],
        "scalar subquery with an aggregate",
      );
    },
  },
  {
    name: "JOIN flattens arrays; a second JOIN gives the cross product; empty arrays give no rows",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, [
        { id: "s1", pk: "p1", tags: ["a", "b"], sizes: [{ n: 1 }, { n: 2 }] },
        { id: "s2", pk: "p2", tags: ["b"], sizes: [{ n: 3 }] },
        { id: "s3", pk: "p3", tags: [], sizes: [{ n: 4 }] },
      ]);
      sameRows(
        await queryAll(container, "SELECT c.id, t AS tag FROM c JOIN t IN c.tags"),
        [{ id: "s1", tag: "a" }, { id: "s1", tag: "b" }, { id: "s2", tag: "b" }],
        "JOIN t IN c.tags",
      );
      a.deepEq(
        (await queryAll(container, "SELECT VALUE c.id FROM c JOIN t IN c.tags WHERE t = 'b'")).sort(),
        ["s1", "s2"],
        "JOIN with a filter on the joined value",
      );
      sameRows(
        await queryAll(container, "SELECT c.id, t, s.n FROM c JOIN t IN c.tags JOIN s IN c.sizes"),
        [
          { id: "s1", t: "a", n: 1 },
          { id: "s1", t: "a", n: 2 },
          { id: "s1", t: "b", n: 1 },
          { id: "s1", t: "b", n: 2 },
          { id: "s2", t: "b", n: 3 },
        ],
        "double JOIN",
      );
      a.deepEq(await queryAll(container, "SELECT VALUE COUNT(1) FROM c JOIN s IN c.sizes"), [4], "COUNT over a JOIN");
    },
  },
  {
    name: "DISTINCT and DISTINCT VALUE; a missing property is one distinct {}",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, [
        { id: "1", pk: "p1", cat: "tools", n: 1 },
        { id: "2", pk: "p2", cat: "tools", n: 1 },
        { id: "3", pk: "p3", cat: "toys", n: 2 },
        { id: "4", pk: "p1", cat: "toys", n: 2 },
        { id: "5", pk: "p2", cat: "food", n: 1 },
        { id: "6", pk: "p3", n: 3 },
        { id: "7", pk: "p1", n: 3 },
      ]);
      sameRows(await queryAll(container, "SELECT DISTINCT VALUE c.cat FROM c"), ["tools", "toys", "food"], "DISTINCT VALUE");
      sameRows(
        await queryAll(container, "SELECT DISTINCT c.cat FROM c"),
        [{}, { cat: "tools" }, { cat: "toys" }, { cat: "food" }],
        "DISTINCT with a missing property",
      );
      sameRows(
        await queryAll(container, "SELECT DISTINCT c.cat, c.n FROM c WHERE IS_DEFINED(c.cat)"),
        [{ cat: "tools", n: 1 }, { cat: "toys", n: 2 }, { cat: "food", n: 1 }],
        "DISTINCT over two properties",
      );
      a.deepEq(await queryAll(container, "SELECT DISTINCT VALUE c.n FROM c ORDER BY c.n"), [1, 2, 3], "DISTINCT VALUE with ORDER BY");
    },
  },
  {
    name: "GROUP BY with COUNT, SUM, AVG, MIN, MAX across partitions",
    async run(ctx) {
      const { container } = await ctx.container();
      const prices = { A: [1, 2, 3, 6], B: [2, 5], C: [7] };
      const docs = [];
      let i = 0;
      for (const [cat, list] of Object.entries(prices)) {
        for (const price of list) docs.push({ id: `g${i}`, pk: `p${i++ % 3}`, cat, price, big: price > 2 });
      }
      await seed(container, docs);
      sameRows(
        await queryAll(
          container,
          "SELECT c.cat, COUNT(1) AS n, SUM(c.price) AS total, AVG(c.price) AS mean, MIN(c.price) AS lo, MAX(c.price) AS hi " +
            "FROM c GROUP BY c.cat",
        ),
        [
          { cat: "A", n: 4, total: 12, mean: 3, lo: 1, hi: 6 },
          { cat: "B", n: 2, total: 7, mean: 3.5, lo: 2, hi: 5 },
          { cat: "C", n: 1, total: 7, mean: 7, lo: 7, hi: 7 },
        ],
        "GROUP BY c.cat with aggregates",
      );
      sameRows(await queryAll(container, "SELECT VALUE c.cat FROM c GROUP BY c.cat"), ["A", "B", "C"], "SELECT VALUE with GROUP BY");
      sameRows(
        await queryAll(container, "SELECT c.cat, COUNT(1) AS n FROM c WHERE c.price > 2 GROUP BY c.cat"),
        [{ cat: "A", n: 2 }, { cat: "B", n: 1 }, { cat: "C", n: 1 }],
        "GROUP BY after WHERE",
      );
      sameRows(
        await queryAll(container, "SELECT c.cat, c.big, COUNT(1) AS n FROM c GROUP BY c.cat, c.big"),
        [
          { cat: "A", big: false, n: 2 },
          { cat: "A", big: true, n: 2 },
          { cat: "B", big: false, n: 1 },
          { cat: "B", big: true, n: 1 },
          { cat: "C", big: true, n: 1 },
        ],
        "GROUP BY two properties",
      );
    },
  },
  {
    name: "aggregates with VALUE: COUNT, SUM, AVG, MIN, MAX across partitions and in one partition",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, numbered(10)); // n = 0..9, partitions a (0,3,6,9) b (1,4,7) c (2,5,8)
      const one = async (query, options) => {
        const rows = await queryAll(container, query, options);
        a.eq(rows.length, 1, `${query}: one row`);
        return rows[0];
      };
      a.eq(await one("SELECT VALUE COUNT(1) FROM c"), 10, "COUNT(1)");
      a.eq(await one("SELECT VALUE COUNT(c.n) FROM c WHERE c.n >= 5"), 5, "COUNT(c.n) with WHERE");
      a.eq(await one("SELECT VALUE SUM(c.n) FROM c"), 45, "SUM");
      a.eq(await one("SELECT VALUE AVG(c.n) FROM c"), 4.5, "AVG");
      a.eq(await one("SELECT VALUE MIN(c.n) FROM c"), 0, "MIN");
      a.eq(await one("SELECT VALUE MAX(c.n) FROM c"), 9, "MAX");
      a.eq(await one("SELECT VALUE MAX(c.name) FROM c"), numbered(10).map((d) => d.name).sort().at(-1), "MAX of strings");
      a.eq(await one("SELECT VALUE COUNT(1) FROM c WHERE c.n > 100"), 0, "COUNT of no rows");
      a.eq(await one("SELECT VALUE COUNT(1) FROM c", { partitionKey: "a" }), 4, "COUNT in partition a");
      a.eq(await one("SELECT VALUE SUM(c.n) FROM c", { partitionKey: "b" }), 12, "SUM in partition b");
      a.eq(await one("SELECT VALUE AVG(c.n) FROM c", { partitionKey: "c" }), 5, "AVG in partition c");
    },
  },
  {
    name: "aggregates without VALUE in one partition: SELECT COUNT(1) AS n",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, numbered(9));
      a.deepEq(
        await queryAll(container, "SELECT COUNT(1) AS n, SUM(c.n) AS total, MIN(c.n) AS lo, MAX(c.n) AS hi FROM c", {
          partitionKey: "a",
        }),
        [{ n: 3, total: 9, lo: 0, hi: 6 }],
        "aggregates in partition a",
      );
    },
  },
  {
    name: "MIN and MAX over mixed types: null < boolean < number < string",
    async run(ctx) {
      // min.md / max.md: "The following priority order is used (in ascending order) ... null, boolean, number, string";
      // undefined values are ignored.
      const { container } = await ctx.container();
      const values = [5, "b", true, null, "a", false, -3];
      await seed(container, values.map((v, i) => ({ id: `m${i}`, pk: "p", v })));
      await container.items.create({ id: "nov", pk: "p" });
      const opts = { partitionKey: "p" };
      a.deepEq(await queryAll(container, "SELECT VALUE MIN(c.v) FROM c", opts), [null], "MIN with a null");
      a.deepEq(await queryAll(container, "SELECT VALUE MAX(c.v) FROM c", opts), ["b"], "MAX with strings");
      a.deepEq(await queryAll(container, "SELECT VALUE MIN(c.v) FROM c WHERE NOT IS_NULL(c.v)", opts), [false], "MIN of booleans, numbers, strings");
      a.deepEq(await queryAll(container, "SELECT VALUE MAX(c.v) FROM c WHERE IS_NUMBER(c.v) OR IS_BOOL(c.v)", opts), [5],
        "MAX of booleans and numbers");
    },
  },
  {
    name: "ORDER BY numbers and strings, ascending and descending, across partitions",
    async run(ctx) {
      const { container } = await ctx.container();
      const docs = numbered(12);
      await seed(container, docs);
      const byN = docs.map((d) => d.n);
      a.deepEq(await queryAll(container, "SELECT VALUE c.n FROM c ORDER BY c.n"), byN, "ORDER BY c.n (default ASC)");
      a.deepEq(await queryAll(container, "SELECT VALUE c.n FROM c ORDER BY c.n ASC"), byN, "ORDER BY c.n ASC");
      a.deepEq(await queryAll(container, "SELECT VALUE c.n FROM c ORDER BY c.n DESC"), [...byN].reverse(), "ORDER BY c.n DESC");
      const names = docs.map((d) => d.name).sort();
      a.deepEq(await queryAll(container, "SELECT VALUE c.name FROM c ORDER BY c.name"), names, "ORDER BY c.name");
      a.deepEq(await queryAll(container, "SELECT VALUE c.name FROM c ORDER BY c.name DESC"), [...names].reverse(), "ORDER BY c.name DESC");
      const rows = await queryAll(container, "SELECT c.id, c.n FROM c WHERE c.n >= 4 ORDER BY c.n DESC");
      a.deepEq(rows, docs.filter((d) => d.n >= 4).reverse().map((d) => ({ id: d.id, n: d.n })), "projection with WHERE and ORDER BY");
      const full = await queryAll(container, "SELECT * FROM c ORDER BY c.id DESC");
      a.deepEq(full.map((r) => r.id), docs.map((d) => d.id).reverse(), "SELECT * ORDER BY c.id DESC");
      a.isType(full[0]._rid, "string", "SELECT * ORDER BY keeps system properties");
    },
  },
  {
    name: "ORDER BY two properties with a composite index (one partition and across partitions)",
    async run(ctx) {
      const { container } = await ctx.container({
        indexingPolicy: {
          indexingMode: "consistent",
          automatic: true,
          includedPaths: [{ path: "/*" }],
          excludedPaths: [{ path: '/"_etag"/?' }],
          compositeIndexes: [
            [
              { path: "/cat", order: "ascending" },
              { path: "/n", order: "descending" },
            ],
            [
              { path: "/cat", order: "descending" },
              { path: "/n", order: "ascending" },
            ],
          ],
        },
      });
      const docs = numbered(12).map((d) => ({ ...d, pk: d.n < 6 ? "a" : "b" }));
      await seed(container, docs);
      const cmp = (x, y) => (x < y ? -1 : x > y ? 1 : 0);
      const expectAscDesc = (list) => [...list].sort((x, y) => cmp(x.cat, y.cat) || y.n - x.n).map((d) => [d.cat, d.n]);
      const expectDescAsc = (list) => [...list].sort((x, y) => cmp(y.cat, x.cat) || x.n - y.n).map((d) => [d.cat, d.n]);
      const inA = docs.filter((d) => d.pk === "a");
      a.deepEq(
        await queryAll(container, "SELECT VALUE [c.cat, c.n] FROM c ORDER BY c.cat ASC, c.n DESC", { partitionKey: "a" }),
        expectAscDesc(inA),
        "one partition: cat ASC, n DESC",
      );
      a.deepEq(
        await queryAll(container, "SELECT VALUE [c.cat, c.n] FROM c ORDER BY c.cat DESC, c.n ASC", { partitionKey: "a" }),
        expectDescAsc(inA),
        "one partition: cat DESC, n ASC",
      );
      a.deepEq(
        await queryAll(container, "SELECT VALUE [c.cat, c.n] FROM c ORDER BY c.cat ASC, c.n DESC"),
        expectAscDesc(docs),
        "across partitions: cat ASC, n DESC",
      );
    },
  },
  {
    name: "ORDER BY over mixed types in one partition: null < false < true < numbers < strings",
    async run(ctx) {
      // order-by.md: "null values are treated as the lowest possible values"; min.md documents the
      // type priority null, boolean, number, string.
      const { container } = await ctx.container();
      const values = ["b", 2, true, null, false, -1, "a", 10];
      await seed(container, values.map((v, i) => ({ id: `o${i}`, pk: "p", v })));
      const asc = [null, false, true, -1, 2, 10, "a", "b"];
      a.deepEq(await queryAll(container, "SELECT VALUE c.v FROM c ORDER BY c.v", { partitionKey: "p" }), asc, "ASC");
      a.deepEq(await queryAll(container, "SELECT VALUE c.v FROM c ORDER BY c.v DESC", { partitionKey: "p" }), [...asc].reverse(), "DESC");
    },
  },
  {
    name: "TOP with ORDER BY, TOP with a parameter, TOP larger than the result",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, numbered(10));
      a.deepEq(await queryAll(container, "SELECT TOP 3 VALUE c.n FROM c ORDER BY c.n DESC"), [9, 8, 7], "TOP 3 ORDER BY DESC");
      a.deepEq(
        await queryAll(container, { query: "SELECT TOP @k VALUE c.n FROM c ORDER BY c.n", parameters: [{ name: "@k", value: 4 }] }),
        [0, 1, 2, 3],
        "TOP @k",
      );
      a.deepEq(await queryAll(container, "SELECT TOP 50 VALUE c.n FROM c WHERE c.n < 3 ORDER BY c.n"), [0, 1, 2], "TOP beyond the rows");
      a.eq((await queryAll(container, "SELECT TOP 4 * FROM c")).length, 4, "TOP 4 without ORDER BY: 4 rows");
      a.deepEq(await queryAll(container, "SELECT TOP 2 VALUE c.n FROM c ORDER BY c.n", { partitionKey: "b" }), [1, 4],
        "TOP in one partition");
    },
  },
  {
    name: "OFFSET LIMIT with ORDER BY, across partitions and in one partition",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, numbered(15));
      a.deepEq(await queryAll(container, "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 3 LIMIT 4"), [3, 4, 5, 6], "OFFSET 3 LIMIT 4");
      a.deepEq(await queryAll(container, "SELECT VALUE c.n FROM c ORDER BY c.n DESC OFFSET 0 LIMIT 2"), [14, 13], "OFFSET 0 LIMIT 2 DESC");
      a.deepEq(await queryAll(container, "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 13 LIMIT 10"), [13, 14], "LIMIT past the end");
      a.deepEq(await queryAll(container, "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 20 LIMIT 5"), [], "OFFSET past the end");
      a.deepEq(
        await queryAll(container, {
          query: "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET @o LIMIT @l",
          parameters: [
            { name: "@o", value: 1 },
            { name: "@l", value: 2 },
          ],
        }),
        [1, 2],
        "OFFSET @o LIMIT @l",
      );
      // partition a holds 0, 3, 6, 9, 12
      a.deepEq(await queryAll(container, "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 1 LIMIT 3", { partitionKey: "a" }), [3, 6, 9],
        "in partition a");
    },
  },
  {
    name: "LIKE with %, _, [set], [^set], NOT LIKE and ESCAPE",
    async run(ctx) {
      const { container } = await ctx.container();
      const names = ["apple", "apricot", "banana", "grape", "ape", "a_b", "20% off", "2000 off"];
      await seed(container, names.map((s, i) => ({ id: `l${i}`, pk: `p${i % 2}`, s })));
      const values = async (pattern) => (await queryAll(container, `SELECT VALUE c.s FROM c WHERE c.s ${pattern}`)).sort();
      a.deepEq(await values("LIKE 'ap%'"), ["ape", "apple", "apricot"], "prefix %");
      a.deepEq(await values("LIKE '%e'"), ["ape", "apple", "grape"], "suffix %");
      a.deepEq(await values("LIKE '%an%'"), ["banana"], "contains %");
      a.deepEq(await values("LIKE 'ap_'"), ["ape"], "_ is one character");
      a.deepEq(await values("LIKE '[ab]%a'"), ["banana"], "[set]");
      a.deepEq(await values("LIKE '[^a]%e'"), ["grape"], "[^set]");
      a.deepEq(await values("LIKE 'a[_]b'"), ["a_b"], "bracketed wildcard is literal");
      a.deepEq(await values("LIKE '20^%%' ESCAPE '^'"), ["20% off"], "ESCAPE");
      a.deepEq(await values("LIKE 'apple'"), ["apple"], "no wildcard: whole-string match");
      a.deepEq(await values("NOT LIKE '%a%'"), ["20% off", "2000 off"], "NOT LIKE");
    },
  },
  {
    name: "string, math, array and type-checking system functions",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "f", pk: "p", s: "Hello World", n: -4.5, arr: [3, 1, 2], obj: { k: 1 } });
      const [row] = await queryAll(
        container,
        "SELECT UPPER(c.s) AS up, LOWER(c.s) AS low, LENGTH(c.s) AS len, SUBSTRING(c.s, 6, 5) AS sub, " +
          "CONCAT(c.id, '-', c.pk) AS cat, STARTSWITH(c.s, 'Hell') AS sw, ENDSWITH(c.s, 'world') AS ew, " +
          "CONTAINS(c.s, 'lo w', true) AS ci, INDEX_OF(c.s, 'o') AS io, REPLACE(c.s, 'World', 'There') AS rep, " +
          "ABS(c.n) AS abs, FLOOR(c.n) AS fl, CEILING(c.n) AS ce, SQRT(16) AS sq, POWER(2, 10) AS pw, " +
          "ARRAY_LENGTH(c.arr) AS al, ARRAY_CONTAINS(c.arr, 2) AS ac, ARRAY_SLICE(c.arr, 1) AS sl, " +
          "IS_STRING(c.s) AS iss, IS_NUMBER(c.s) AS isn, IS_ARRAY(c.arr) AS isa, IS_OBJECT(c.obj) AS iso, " +
          "IS_BOOL(false) AS isb, IS_PRIMITIVE(c.obj) AS isp, TOSTRING(42) AS ts, StringToNumber('12.5') AS stn " +
          "FROM c",
      );
      a.deepEq(
        row,
        {
          up: "HELLO WORLD",
          low: "hello world",
          len: 11,
          sub: "World",
          cat: "f-p",
          sw: true,
          ew: false,
          ci: true,
          io: 4,
          rep: "Hello There",
          abs: 4.5,
          fl: -5,
          ce: -4,
          sq: 4,
          pw: 1024,
          al: 3,
          ac: true,
          sl: [1, 2],
          iss: true,
          isn: false,
          isa: true,
          iso: true,
          isb: true,
          isp: false,
          ts: "42",
          stn: 12.5,
        },
        "function results",
      );
    },
  },
  {
    name: "a query scoped by the partitionKey option sees only that logical partition",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, numbered(9));
      a.deepEq((await queryAll(container, "SELECT VALUE c.id FROM c", { partitionKey: "b" })).sort(), ["d01", "d04", "d07"],
        "partition b");
      a.deepEq(await queryAll(container, "SELECT VALUE c.id FROM c WHERE c.n = 1", { partitionKey: "a" }), [],
        "a match in another partition is not returned");
      a.deepEq(await queryAll(container, "SELECT VALUE c.id FROM c", { partitionKey: "zzz" }), [], "an empty partition");
      a.deepEq((await queryAll(container, "SELECT VALUE c.id FROM c WHERE c.pk = 'c'")).sort(), ["d02", "d05", "d08"],
        "a filter on the partition key without the option");
    },
  },
  {
    name: "paging: fetchNext with maxItemCount 1..3 over a filter returns every row once",
    async run(ctx) {
      const { container } = await ctx.container();
      const docs = numbered(22);
      await seed(container, docs);
      const expected = docs.filter((d) => d.n % 3 !== 1).map((d) => d.id);
      for (const maxItemCount of [1, 2, 3]) {
        const pages = await queryPages(container, "SELECT VALUE c.id FROM c WHERE c.n % 3 != 1", { maxItemCount });
        checkPaged(pages, expected, maxItemCount, `cross-partition maxItemCount ${maxItemCount}`);
      }
      const inA = docs.filter((d) => d.pk === "a").map((d) => d.id);
      for (const maxItemCount of [1, 2, 3]) {
        const pages = await queryPages(container, "SELECT VALUE c.id FROM c", { maxItemCount, partitionKey: "a" });
        checkPaged(pages, inA, maxItemCount, `partition a maxItemCount ${maxItemCount}`);
        a.ok(pages.filter((p) => (p.resources ?? []).length > 0).length >= Math.ceil(inA.length / maxItemCount),
          `partition a maxItemCount ${maxItemCount}: at least ${Math.ceil(inA.length / maxItemCount)} non-empty pages`);
      }
    },
  },
  {
    name: "paging: ORDER BY with maxItemCount 1..3 keeps the order across pages",
    async run(ctx) {
      const { container } = await ctx.container();
      const docs = numbered(20);
      await seed(container, docs);
      const desc = docs.map((d) => d.n).reverse();
      for (const maxItemCount of [1, 2, 3]) {
        const pages = await queryPages(container, "SELECT VALUE c.n FROM c ORDER BY c.n DESC", { maxItemCount });
        checkPaged(pages, desc, maxItemCount, `cross-partition ORDER BY maxItemCount ${maxItemCount}`, { ordered: true });
        const names = await queryPages(container, "SELECT c.id, c.name FROM c ORDER BY c.name", { maxItemCount });
        const byName = [...docs].sort((x, y) => (x.name < y.name ? -1 : 1)).map((d) => ({ id: d.id, name: d.name }));
        checkPaged(names, byName, maxItemCount, `ORDER BY c.name maxItemCount ${maxItemCount}`, { ordered: true });
      }
      const inB = docs.filter((d) => d.pk === "b").map((d) => d.n);
      for (const maxItemCount of [1, 2, 3]) {
        const pages = await queryPages(container, "SELECT VALUE c.n FROM c ORDER BY c.n", { maxItemCount, partitionKey: "b" });
        checkPaged(pages, inB, maxItemCount, `partition b ORDER BY maxItemCount ${maxItemCount}`, { ordered: true });
      }
    },
  },
  {
    name: "paging: DISTINCT, GROUP BY and OFFSET LIMIT with maxItemCount 1..3",
    async run(ctx) {
      const { container } = await ctx.container();
      // Buckets start at 1: @azure/cosmos 4.9.3 drops falsy values (0, false, "", null) from unordered
      // DISTINCT results it merges across partitions (UnorderedDistinctEndpointComponent: `if (item)`).
      const docs = numbered(24, (i) => ({ bucket: (i % 7) + 1 }));
      const buckets = [1, 2, 3, 4, 5, 6, 7];
      await seed(container, docs);
      for (const maxItemCount of [1, 2, 3]) {
        const distinct = await queryPages(container, "SELECT DISTINCT VALUE c.bucket FROM c", { maxItemCount });
        checkPaged(distinct, buckets, maxItemCount, `DISTINCT VALUE maxItemCount ${maxItemCount}`);
        const ordered = await queryPages(container, "SELECT DISTINCT VALUE c.bucket FROM c ORDER BY c.bucket", { maxItemCount });
        checkPaged(ordered, buckets, maxItemCount, `DISTINCT ORDER BY maxItemCount ${maxItemCount}`, { ordered: true });
        const groups = await queryPages(container, "SELECT c.bucket, COUNT(1) AS n FROM c GROUP BY c.bucket", { maxItemCount });
        const expectedGroups = buckets.map((b) => ({ bucket: b, n: docs.filter((d) => d.bucket === b).length }));
        checkPaged(groups, expectedGroups, maxItemCount, `GROUP BY maxItemCount ${maxItemCount}`);
        const window = await queryPages(container, "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 5 LIMIT 11", { maxItemCount });
        checkPaged(window, [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], maxItemCount, `OFFSET LIMIT maxItemCount ${maxItemCount}`,
          { ordered: true });
      }
    },
  },
  {
    name: "paging: getAsyncIterator yields pages that cover every row once",
    async run(ctx) {
      const { container } = await ctx.container();
      const docs = numbered(13);
      await seed(container, docs);
      const rows = [];
      let pageCount = 0;
      for await (const page of container.items.query("SELECT VALUE c.id FROM c", { maxItemCount: 2 }).getAsyncIterator()) {
        pageCount += 1;
        a.ok(page.resources.length <= 2, `page ${pageCount} has ${page.resources.length} rows`);
        rows.push(...page.resources);
        if (pageCount > 100) a.fail("getAsyncIterator does not end");
      }
      a.deepEq(rows.sort(), docs.map((d) => d.id), "ids");
      const ordered = [];
      for await (const page of container.items.query("SELECT VALUE c.n FROM c ORDER BY c.n", { maxItemCount: 3 }).getAsyncIterator()) {
        ordered.push(...page.resources);
      }
      a.deepEq(ordered, docs.map((d) => d.n), "ORDER BY through getAsyncIterator");
    },
  },
  {
    name: "continuation: a new iterator given a page's continuationToken returns exactly the remaining rows",
    async run(ctx) {
      const { container } = await ctx.container();
      const docs = numbered(25).map((d) => ({ ...d, pk: d.n < 20 ? "a" : "b" }));
      await seed(container, docs);
      const cases = [
        { query: "SELECT VALUE c.id FROM c WHERE c.n >= 2", expected: docs.filter((d) => d.pk === "a" && d.n >= 2).map((d) => d.id), ordered: false },
        { query: "SELECT VALUE c.n FROM c ORDER BY c.n DESC", expected: docs.filter((d) => d.pk === "a").map((d) => d.n).reverse(), ordered: true },
        { query: "SELECT c.id, c.name FROM c ORDER BY c.name", expected: docs.filter((d) => d.pk === "a").sort((x, y) => (x.name < y.name ? -1 : 1)).map((d) => ({ id: d.id, name: d.name })), ordered: true },
      ];
      for (const { query, expected, ordered } of cases) {
        for (const [maxItemCount, pagesBefore] of [[3, 1], [2, 3], [1, 5]]) {
          const what = `${query} maxItemCount ${maxItemCount} after ${pagesBefore} page(s)`;
          const first = container.items.query(query, { partitionKey: "a", maxItemCount });
          const seen = [];
          let token;
          for (let i = 0; i < pagesBefore; i++) {
            const page = await first.fetchNext();
            seen.push(...(page.resources ?? []));
            token = page.continuationToken;
          }
          a.eq(seen.length, maxItemCount * pagesBefore, `${what}: rows before resuming`);
          a.isType(token, "string", `${what}: continuationToken`);
          const resumed = await container.items
            .query(query, { partitionKey: "a", maxItemCount, continuationToken: token })
            .fetchAll();
          const all = [...seen, ...resumed.resources];
          if (ordered) a.deepEq(all, expected, `${what}: rows before + after`);
          else sameRows(all, expected, `${what}: rows before + after`);
          const keys = all.map((r) => JSON.stringify(r));
          a.eq(new Set(keys).size, keys.length, `${what}: no row twice`);
        }
      }
      // Resuming a second time from a token taken from the resumed iterator.
      const q = "SELECT VALUE c.n FROM c ORDER BY c.n";
      const it1 = container.items.query(q, { partitionKey: "a", maxItemCount: 4 });
      const p1 = await it1.fetchNext();
      const it2 = container.items.query(q, { partitionKey: "a", maxItemCount: 4, continuationToken: p1.continuationToken });
      const p2 = await it2.fetchNext();
      const rest = await container.items.query(q, { partitionKey: "a", maxItemCount: 4, continuationToken: p2.continuationToken }).fetchAll();
      a.deepEq([...p1.resources, ...p2.resources, ...rest.resources], docs.filter((d) => d.pk === "a").map((d) => d.n),
        "two resumptions in a row");
    },
  },
  {
    name: "the last page has no continuationToken",
    async run(ctx) {
      const { container } = await ctx.container();
      await seed(container, numbered(6).map((d) => ({ ...d, pk: "a" })));
      const pages = await queryPages(container, "SELECT VALUE c.id FROM c", { partitionKey: "a", maxItemCount: 2 });
      a.ok(!pages.at(-1).continuationToken, `last page continuationToken: ${pages.at(-1).continuationToken}`);
      const single = await container.items.query("SELECT VALUE c.id FROM c", { partitionKey: "a", maxItemCount: 100 }).fetchNext();
      a.eq(single.resources.length, 6, "one page holds all rows");
      a.ok(!single.continuationToken, `continuationToken of a complete page: ${single.continuationToken}`);
      a.eq(single.hasMoreResults, false, "hasMoreResults of a complete page");
    },
  },
  {
    name: "request charge: every page costs a positive charge; scanning more items costs more",
    async run(ctx) {
      const { container } = await ctx.container();
      const blob = "x".repeat(2000);
      await seed(container, numbered(20).map((d) => ({ ...d, pk: "a", blob })));
      const pages = await queryPages(container, "SELECT * FROM c", { partitionKey: "a", maxItemCount: 3 });
      for (const [i, page] of pages.entries()) {
        if ((page.resources ?? []).length === 0) continue;
        a.ok(page.requestCharge > 0, `page ${i + 1}: requestCharge should be positive, got ${page.requestCharge}`);
      }
      const all = await container.items.query("SELECT * FROM c", { partitionKey: "a" }).fetchNext();
      const one = await container.items.query("SELECT * FROM c WHERE c.id = 'd07'", { partitionKey: "a" }).fetchNext();
      a.eq(all.resources.length, 20, "SELECT * rows");
      a.eq(one.resources.length, 1, "point filter rows");
      a.ok(one.requestCharge > 0, `point filter charge should be positive, got ${one.requestCharge}`);
      a.ok(all.requestCharge > one.requestCharge,
        `reading 20 items (${all.requestCharge} RU) should cost more than reading 1 (${one.requestCharge} RU)`);
      const cross = await container.items.query("SELECT VALUE COUNT(1) FROM c").fetchAll();
      a.ok(cross.requestCharge > 0, `cross-partition fetchAll requestCharge should be positive, got ${cross.requestCharge}`);
    },
  },
  {
    name: "query metrics: populateQueryMetrics returns x-ms-documentdb-query-metrics (SDK and raw)",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await seed(container, numbered(10).map((d) => ({ ...d, pk: "a" })));
      const page = await container.items
        .query("SELECT * FROM c WHERE c.n >= 6", { partitionKey: "a", populateQueryMetrics: true })
        .fetchNext();
      a.eq(page.resources.length, 4, "rows");
      const metrics = page.queryMetrics?.["0"];
      a.ok(metrics, `SDK queryMetrics should be parsed from the header, got ${JSON.stringify(page.queryMetrics)}`);
      a.eq(metrics.outputDocumentCount, 4, "SDK queryMetrics outputDocumentCount");
      a.ok(metrics.retrievedDocumentCount >= 4, `SDK retrievedDocumentCount ${metrics.retrievedDocumentCount} should be >= 4`);

      const raw = await rawQuery(ctx, database, container, "SELECT * FROM c WHERE c.n >= 6", {
        partitionKey: "a",
        headers: { "x-ms-documentdb-populatequerymetrics": "True" },
      });
      a.status(raw, 200, "raw query with metrics");
      a.eq(raw.json?.Documents?.length, 4, "raw Documents");
      const header = a.header(raw.headers, "x-ms-documentdb-query-metrics");
      a.isType(header, "string", "x-ms-documentdb-query-metrics header");
      const m = parseMetrics(header, "raw");
      for (const key of ["retrievedDocumentCount", "retrievedDocumentSize", "outputDocumentCount", "outputDocumentSize", "totalExecutionTimeInMs"]) {
        a.ok(key in m, `query metrics should include ${key}: ${header}`);
        a.ok(Number.isFinite(Number(m[key])), `query metrics ${key} should be a number: ${m[key]}`);
      }
      a.eq(Number(m.outputDocumentCount), 4, "outputDocumentCount");
      a.ok(Number(m.retrievedDocumentCount) >= 4, `retrievedDocumentCount ${m.retrievedDocumentCount} should be >= 4`);
      a.ok(Number(m.outputDocumentSize) > 0, `outputDocumentSize ${m.outputDocumentSize} should be positive`);
    },
  },
  {
    name: "raw query: POST .../docs with x-ms-documentdb-isquery answers Documents, _count and x-ms-item-count",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await seed(container, numbered(5).map((d) => ({ ...d, pk: "a" })));
      const response = await rawQuery(ctx, database, container, {
        query: "SELECT * FROM c WHERE c.n < @n",
        parameters: [{ name: "@n", value: 3 }],
      }, { partitionKey: "a" });
      a.status(response, 200, "raw query");
      a.charge(response.headers, "raw query");
      const body = response.json;
      a.isType(body?.Documents, "array", "Documents");
      a.deepEq(body.Documents.map((d) => d.id).sort(), ["d00", "d01", "d02"], "ids");
      a.eq(body._count, 3, "_count");
      a.eq(Number(a.header(response.headers, "x-ms-item-count")), 3, "x-ms-item-count");
      const cross = await rawQuery(ctx, database, container, "SELECT VALUE c.id FROM c WHERE c.n = 4", {
        headers: { "x-ms-documentdb-query-enablecrosspartition": "True" },
      });
      a.status(cross, 200, "raw cross-partition query");
      a.deepEq(cross.json?.Documents, ["d04"], "raw VALUE rows");
    },
  },
  {
    name: "databases.query and containers.query with parameters",
    async run(ctx) {
      const database = await ctx.database();
      const ids = [ctx.uid("qc"), ctx.uid("qc"), ctx.uid("qc")];
      for (const id of ids) await database.containers.create({ id, partitionKey: { paths: ["/pk"] } });
      const dbs = await ctx.client.databases
        .query({ query: "SELECT * FROM root r WHERE r.id = @id", parameters: [{ name: "@id", value: database.id }] })
        .fetchAll();
      a.eq(dbs.resources.length, 1, "databases matching the id");
      a.eq(dbs.resources[0].id, database.id, "database id");
      a.isType(dbs.resources[0]._rid, "string", "database _rid");
      a.isType(dbs.resources[0]._self, "string", "database _self");
      a.ok(dbs.requestCharge > 0, `databases query requestCharge should be positive, got ${dbs.requestCharge}`);
      const none = await ctx.client.databases
        .query({ query: "SELECT * FROM root r WHERE r.id = @id", parameters: [{ name: "@id", value: ctx.uid("nodb") }] })
        .fetchAll();
      a.deepEq(none.resources, [], "no database matches");

      const one = await database.containers
        .query({ query: "SELECT * FROM root r WHERE r.id = @id", parameters: [{ name: "@id", value: ids[1] }] })
        .fetchAll();
      a.deepEq(one.resources.map((c) => c.id), [ids[1]], "container matching the id");
      a.deepEq(one.resources[0].partitionKey?.paths, ["/pk"], "container partitionKey in the query result");
      const all = await database.containers.query("SELECT VALUE r.id FROM root r").fetchAll();
      a.deepEq(all.resources.sort(), [...ids].sort(), "all container ids of the database");
      const pages = [];
      const iterator = database.containers.query("SELECT * FROM root r", { maxItemCount: 1 });
      while (iterator.hasMoreResults()) {
        const page = await iterator.fetchNext();
        pages.push(page);
        if (pages.length > 20) a.fail("containers.query paging does not end");
      }
      checkPaged(pages.map((p) => ({ ...p, resources: (p.resources ?? []).map((c) => c.id) })), ids, 1,
        "containers.query maxItemCount 1");
    },
  },
];
