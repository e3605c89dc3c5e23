// Query errors: syntax errors, unknown functions, wrong arity, unresolved identifiers and malformed
// requests answer 400 BadRequest with a {code, message} body, through the SDK and raw requests.
// Message fragments are the ones the service puts in its errors (SC1001 "Syntax error, incorrect
// syntax near ...", SC2050 "The X function requires N argument(s).", "'X' is not a recognized
// built-in function name.").
import * as a from "../lib/assert.mjs";
import { seg } from "../lib/raw.mjs";

function docsPath(database, container) {
  return `/dbs/${seg(database.id)}/colls/${seg(container.id)}/docs`;
}

function rawQuery(ctx, database, container, body, { partitionKey = "p", headers = {} } = {}) {
  return ctx.raw({
    method: "POST",
    path: docsPath(database, container),
    headers: {
      "x-ms-documentdb-isquery": "True",
      "content-type": "application/query+json",
      "x-ms-documentdb-partitionkey": partitionKey === undefined ? undefined : JSON.stringify([partitionKey]),
      ...headers,
    },
    body: typeof body === "string" ? { query: body, parameters: [] } : body,
  });
}

// The SDK rejects the query with 400; the error body has code BadRequest and a message containing
// `fragment` (a string or a RegExp). Checked with and without the partitionKey option.
async function sdkRejects(container, query, fragment, what) {
  for (const options of [{}, { partitionKey: "p" }]) {
    const label = `${what}${options.partitionKey ? " (partitionKey)" : ""}`;
    const error = await a.rejects(() => container.items.query(query, options).fetchAll(), 400, label);
    a.eq(error.body?.code, "BadRequest", `${label}: body code`);
    if (fragment instanceof RegExp) a.match(error.body.message, fragment, `${label}: message`);
    else a.includes(error.body.message, fragment, `${label}: message`);
  }
}

async function rawRejects(ctx, database, container, body, fragment, what) {
  const response = await rawQuery(ctx, database, container, body);
  a.rawError(response, 400, what);
  a.eq(response.json.code, "BadRequest", `${what}: body code`);
  if (fragment instanceof RegExp) a.match(response.json.message, fragment, `${what}: message`);
  else if (fragment) a.includes(response.json.message, fragment, `${what}: message`);
  return response;
}

export default [
  {
    name: "syntax errors answer 400 BadRequest mentioning \"Syntax error\" (SDK)",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "x", pk: "p" });
      for (const query of [
        "SELECT * FORM c",
        "SELECT * FROM c WHERE",
        "SELECT FROM c",
        "SELEC * FROM c",
        "SELECT * FROM c ORDER c.id",
      ]) {
        await sdkRejects(container, query, "Syntax error", JSON.stringify(query));
      }
    },
  },
  {
    name: "syntax error through a raw query: 400 with {code: BadRequest, message}",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await rawRejects(ctx, database, container, "SELECT * FORM c", "Syntax error", "raw syntax error");
      await rawRejects(ctx, database, container, "SELECT * FROM c WHERE c.id = ", "Syntax error", "raw unexpected end");
    },
  },
  {
    name: "an unknown function answers 400: is not a recognized built-in function name",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await container.items.create({ id: "x", pk: "p" });
      await sdkRejects(container, "SELECT VALUE NOSUCHFUNCTION(c.id) FROM c", "is not a recognized built-in function name",
        "unknown function in SELECT");
      await sdkRejects(container, "SELECT * FROM c WHERE NOSUCHFUNCTION(c.id)", "is not a recognized built-in function name",
        "unknown function in WHERE");
      await rawRejects(ctx, database, container, "SELECT VALUE NOSUCHFUNCTION(c.id) FROM c", /NOSUCHFUNCTION/i,
        "raw unknown function names the function");
    },
  },
  {
    name: "a built-in function with the wrong number of arguments answers 400",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await container.items.create({ id: "x", pk: "p" });
      await sdkRejects(container, "SELECT VALUE ABS(1, 2) FROM c", /ABS function requires 1 argument\(s\)/i, "ABS(1, 2)");
      await sdkRejects(container, "SELECT VALUE ABS() FROM c", /ABS function requires 1 argument\(s\)/i, "ABS()");
      await rawRejects(ctx, database, container, "SELECT * FROM c WHERE STARTSWITH(c.id)", /STARTSWITH function requires/i,
        "raw STARTSWITH with one argument");
    },
  },
  {
    name: "an identifier that is not in scope answers 400",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await container.items.create({ id: "x", pk: "p" });
      await sdkRejects(container, "SELECT * FROM c WHERE d.id = 'x'", "could not be resolved", "unknown alias d");
      await rawRejects(ctx, database, container, "SELECT d.id FROM c", "could not be resolved", "raw unknown alias in SELECT");
    },
  },
  {
    name: "GROUP BY together with ORDER BY answers 400",
    async run(ctx) {
      // group-by.md: "You can't use GROUP BY with an ORDER BY clause."
      const { database, container } = await ctx.container();
      await container.items.create({ id: "x", pk: "p", cat: "a" });
      await a.rejects(() => container.items.query("SELECT c.cat FROM c GROUP BY c.cat ORDER BY c.cat", { partitionKey: "p" }).fetchAll(),
        400, "GROUP BY with ORDER BY");
      await rawRejects(ctx, database, container, "SELECT c.cat FROM c GROUP BY c.cat ORDER BY c.cat", null, "raw GROUP BY with ORDER BY");
    },
  },
  {
    name: "a query body that is not JSON, or has no query, answers 400",
    async run(ctx) {
      const { database, container } = await ctx.container();
      for (const [body, what] of [
        ["{not json", "malformed JSON"],
        ['{"parameters": []}', "no query property"],
      ]) {
        const response = await rawQuery(ctx, database, container, body);
        a.rawError(response, 400, what);
      }
    },
  },
  {
    name: "a malformed continuation token on a query answers 400",
    async run(ctx) {
      const { database, container } = await ctx.container();
      await container.items.create({ id: "x", pk: "p" });
      const response = await rawQuery(ctx, database, container, "SELECT * FROM c", {
        headers: { "x-ms-continuation": "not a continuation token" },
      });
      a.rawError(response, 400, "malformed continuation");
    },
  },
  {
    name: "a query on a missing container answers 404",
    async run(ctx) {
      const database = await ctx.database();
      await a.rejects(() => database.container(ctx.uid("missing")).items.query("SELECT * FROM c").fetchAll(), 404,
        "SDK query on a missing container");
      const raw = await ctx.raw({
        method: "POST",
        path: `/dbs/${seg(database.id)}/colls/missing/docs`,
        headers: {
          "x-ms-documentdb-isquery": "True",
          "content-type": "application/query+json",
          "x-ms-documentdb-partitionkey": '["p"]',
        },
        body: { query: "SELECT * FROM c", parameters: [] },
      });
      a.rawError(raw, 404, "raw query on a missing container");
    },
  },
];
