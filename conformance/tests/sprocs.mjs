// Stored procedures with document access: the patterns of the service's documentation and samples
// (bulk import, create-if-absent, a counter, bulk delete with a continuation), one transaction per
// execution (a throw rolls everything back, checked by reads and the change feed; an error a
// script catches undoes only its own operation), the collection API (queries with parameters,
// pages and continuations, reads by name and by _self, etags, the chain API), the scope of one
// logical partition, and bounded execution on a server with a short --script-time-limit: calls
// that stop being accepted so that the script can return a continuation, and 408 with nothing
// written for a script that ignores them.
import { ChangeFeedStartFrom } from "@azure/cosmos";
import * as a from "../lib/assert.mjs";

// Creates documents one after another until done or no longer accepted; answers how many.
const bulkImport = `function bulkImport(docs) {
  const collection = getContext().getCollection();
  const response = getContext().getResponse();
  let count = 0;
  if (!docs || docs.length === 0) { response.setBody(0); return; }
  create(docs[count]);
  function create(doc) {
    const accepted = collection.createDocument(collection.getSelfLink(), doc, created);
    if (!accepted) response.setBody(count);
  }
  function created(err) {
    if (err) throw err;
    count++;
    if (count === docs.length) response.setBody(count);
    else create(docs[count]);
  }
}`;

// Creates documents { id: prefix + i, pk } for i from `from` up to `total`, until done or no
// longer accepted; answers the next i. The documents are made in the script: any number fits in
// a request.
const bulkGenerate = `function bulkGenerate(prefix, from, total, pk) {
  const collection = getContext().getCollection();
  const response = getContext().getResponse();
  let next = from;
  create();
  function create() {
    if (next === total) { response.setBody(next); return; }
    const accepted = collection.createDocument(collection.getSelfLink(), { id: prefix + next, pk }, created);
    if (!accepted) response.setBody(next);
  }
  function created(err) {
    if (err) throw err;
    next++;
    create();
  }
}`;

// Deletes what a query finds, a page at a time; { deleted, continuation } tells the caller whether
// to call again (the budget ran out first).
const bulkDelete = `function bulkDelete(query) {
  const collection = getContext().getCollection();
  const response = getContext().getResponse();
  const result = { deleted: 0, continuation: true };
  queryAndDelete();
  function queryAndDelete(continuation) {
    const accepted = collection.queryDocuments(collection.getSelfLink(), query, { continuation }, (err, docs, options) => {
      if (err) throw err;
      if (docs.length > 0) deleteAll(docs);
      else if (options.continuation) queryAndDelete(options.continuation);
      else { result.continuation = false; response.setBody(result); }
    });
    if (!accepted) response.setBody(result);
  }
  function deleteAll(docs) {
    if (docs.length === 0) return queryAndDelete();
    const accepted = collection.deleteDocument(docs[0]._self, {}, (err, options) => {
      if (err) throw err;
      result.deleted++;
      docs.shift();
      deleteAll(docs);
    });
    if (!accepted) response.setBody(result);
  }
}`;

// Creates the document unless its id exists; answers the stored one either way.
const createIfAbsent = `function createIfAbsent(doc) {
  const collection = getContext().getCollection();
  collection.createDocument(collection.getSelfLink(), doc, { disableAutomaticIdGeneration: true }, (err, created) => {
    if (err && err.number !== ErrorCodes.Conflict) throw err;
    if (!err) return getContext().getResponse().setBody({ created: true, doc: created });
    collection.readDocument(collection.getAltLink() + "/docs/" + doc.id, (readErr, existing) => {
      if (readErr) throw readErr;
      getContext().getResponse().setBody({ created: false, doc: existing });
    });
  });
}`;

// Adds one to a counter document, guarded by its etag.
const increment = `function increment(id) {
  const collection = getContext().getCollection();
  const link = collection.getAltLink() + "/docs/" + id;
  collection.readDocument(link, {}, (err, counter) => {
    if (err && err.number === 404) {
      return collection.createDocument(collection.getSelfLink(), { id, pk: "c", value: 1 },
        (createErr, created) => { if (createErr) throw createErr; getContext().getResponse().setBody(created.value); });
    }
    if (err) throw err;
    counter.value += 1;
    collection.replaceDocument(counter._self, counter, { etag: counter._etag }, (replaceErr, replaced) => {
      if (replaceErr) throw replaceErr;
      getContext().getResponse().setBody(replaced.value);
    });
  });
}`;

async function define(container, id, body) {
  await container.scripts.storedProcedures.create({ id, body });
  return container.scripts.storedProcedure(id);
}

const items = (count, pk, from = 0) => Array.from({ length: count }, (_, i) => ({ id: `d${from + i}`, pk, n: from + i }));

async function countIn(container, pk) {
  const { resources } = await container.items.query("SELECT VALUE COUNT(1) FROM c", { partitionKey: pk }).fetchAll();
  return resources[0];
}

// Runs the bulk import until every document is in, as its callers do; answers the number of calls.
async function importAll(procedure, pk, docs) {
  let calls = 0;
  for (let done = 0; done < docs.length; calls++) {
    const { resource } = await procedure.execute(pk, [docs.slice(done)]);
    a.ok(resource > 0 || docs.length === done, "an import call made progress");
    done += resource;
    a.ok(calls < 200, "the import ends");
  }
  return calls;
}

// Runs bulkGenerate until `total` documents are in; answers the number of calls.
async function generateAll(procedure, pk, total) {
  let calls = 0;
  for (let done = 0; done < total; calls++) {
    const { resource } = await procedure.execute(pk, ["g-", done, total, pk]);
    a.ok(resource > done, "a call made progress");
    done = resource;
    a.ok(calls < 1000, "the generation ends");
  }
  return calls;
}

// Runs the bulk delete until it reports no continuation; answers { deleted, calls }.
async function deleteAll(procedure, pk, query) {
  let deleted = 0;
  for (let calls = 1; ; calls++) {
    const { resource } = await procedure.execute(pk, [query]);
    deleted += resource.deleted;
    if (!resource.continuation) return { deleted, calls };
    a.ok(calls < 200, "the delete ends");
  }
}

// A container on a server of the test's own with a short script time limit.
async function shortLimitServer(ctx, milliseconds) {
  const { client } = await ctx.ownServer(["--script-time-limit", String(milliseconds)]);
  const { database } = await client.databases.create({ id: ctx.uid("db") });
  const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
  return container;
}

export default [
  {
    name: "bulk import: every document in one call, charged by the work done",
    async run(ctx) {
      const { container } = await ctx.container();
      const procedure = await define(container, "bulkImport", bulkImport);
      const small = await procedure.execute("a", [items(2, "a")]);
      a.eq(small.resource, 2, "two created");
      const large = await procedure.execute("a", [items(200, "a", 2)]);
      a.eq(large.resource, 200, "two hundred created");
      a.eq(await countIn(container, "a"), 202, "all stored");
      const read = await container.item("d150", "a").read();
      a.eq(read.resource.n, 150, "a document as written");
      a.match(read.resource._self, /^dbs\/.+\/colls\/.+\/docs\/.+\/$/, "with its system properties");
      a.ok(large.requestCharge > 50 * small.requestCharge, `charge grows with documents (${small.requestCharge} → ${large.requestCharge})`);
    },
  },
  {
    name: "create if absent: the conflict reaches the callback as err.number 409, then a read by name",
    async run(ctx) {
      const { container } = await ctx.container();
      const procedure = await define(container, "createIfAbsent", createIfAbsent);
      const first = await procedure.execute("p", [{ id: "one", pk: "p", v: 1 }]);
      a.eq(first.resource.created, true, "created");
      const second = await procedure.execute("p", [{ id: "one", pk: "p", v: 2 }]);
      a.eq(second.resource.created, false, "existed");
      a.eq(second.resource.doc.v, 1, "the stored one");
      a.eq(second.resource.doc._etag, first.resource.doc._etag, "unchanged");
    },
  },
  {
    name: "a counter: read, increment, replace guarded by the etag",
    async run(ctx) {
      const { container } = await ctx.container();
      const procedure = await define(container, "increment", increment);
      for (let i = 1; i <= 4; i++) a.eq((await procedure.execute("c", ["hits"])).resource, i, `run ${i}`);
      a.eq((await container.item("hits", "c").read()).resource.value, 4, "stored");
    },
  },
  {
    name: "bulk delete: the documented continuation pattern deletes one partition's matches, nothing else",
    async run(ctx) {
      const { container } = await ctx.container();
      const importer = await define(container, "bulkImport", bulkImport);
      await importAll(importer, "a", items(150, "a"));
      await importAll(importer, "b", items(5, "b"));
      const remover = await define(container, "bulkDelete", bulkDelete);
      const { deleted } = await deleteAll(remover, "a", "SELECT * FROM c WHERE c.n >= 10");
      a.eq(deleted, 140, "deleted");
      a.eq(await countIn(container, "a"), 10, "the rest of a");
      a.eq(await countIn(container, "b"), 5, "b untouched");
    },
  },
  {
    name: "a throw rolls back everything the procedure wrote: reads and the change feed show nothing",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "before", pk: "p", v: 0 });
      const procedure = await define(container, "writesThenThrows", `function writesThenThrows() {
        const c = getContext().getCollection();
        c.createDocument(c.getSelfLink(), { id: "x1", pk: "p" }, (err) => {
          if (err) throw err;
          c.upsertDocument(c.getSelfLink(), { id: "before", pk: "p", v: 1 }, (err2) => {
            if (err2) throw err2;
            throw new Error(409, "changed my mind");
          });
        });
      }`);
      const error = await a.rejects(procedure.execute("p", []), 400, "the throw", { substatus: 409 });
      a.match(error.message, /Encountered exception while executing Javascript\. Exception = Error: changed my mind/, "message");
      await a.rejects(container.item("x1", "p").read(), 404, "x1 not kept");
      a.eq((await container.item("before", "p").read()).resource.v, 0, "the upsert not kept");
      const feed = container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning("p") });
      const changes = [];
      for (;;) {
        const page = await feed.readNext();
        if (page.statusCode === 304) break;
        changes.push(...page.result);
      }
      a.deepEq(changes.map((d) => [d.id, d.v]), [["before", 0]], "the change feed");
    },
  },
  {
    name: "an error the script catches undoes that operation only; the rest commits",
    async run(ctx) {
      const { container } = await ctx.container({ uniqueKeyPolicy: { uniqueKeys: [{ paths: ["/email"] }] } });
      const procedure = await define(container, "tolerant", `function tolerant() {
        const c = getContext().getCollection();
        const outcomes = [];
        c.createDocument(c.getSelfLink(), { id: "u1", pk: "p", email: "e" }, (err) => {
          outcomes.push(err ? err.number : 201);
          c.createDocument(c.getSelfLink(), { id: "u2", pk: "p", email: "e" }, (err2) => {
            outcomes.push(err2 ? err2.number : 201);
            c.createDocument(c.getSelfLink(), { id: "u3", pk: "p", email: "f" }, (err3) => {
              outcomes.push(err3 ? err3.number : 201);
              getContext().getResponse().setBody(outcomes);
            });
          });
        });
      }`);
      a.deepEq((await procedure.execute("p", [])).resource, [201, 409, 201], "outcomes");
      const { resources } = await container.items.query("SELECT VALUE c.id FROM c", { partitionKey: "p" }).fetchAll();
      a.deepEq(resources.sort(), ["u1", "u3"], "stored");
    },
  },
  {
    name: "queries: parameters, page size and continuations; the procedure reads its own writes",
    async run(ctx) {
      const { container } = await ctx.container();
      for (let i = 0; i < 7; i++) await container.items.create({ id: `q${i}`, pk: "p", n: i });
      const procedure = await define(container, "pages", `function pages(min) {
        const c = getContext().getCollection();
        const seen = [];
        let pages = 0;
        c.createDocument(c.getSelfLink(), { id: "q7", pk: "p", n: 7 }, (err) => {
          if (err) throw err;
          next();
        });
        function next(continuation) {
          const query = { query: "SELECT * FROM c WHERE c.n >= @min ORDER BY c.n", parameters: [{ name: "@min", value: min }] };
          c.queryDocuments(c.getSelfLink(), query, { pageSize: 3, continuation }, (err, docs, options) => {
            if (err) throw err;
            pages++;
            seen.push(...docs.map((d) => d.n));
            if (options.continuation) next(options.continuation);
            else getContext().getResponse().setBody({ seen, pages });
          });
        }
      }`);
      const { resource } = await procedure.execute("p", [2]);
      a.deepEq(resource.seen, [2, 3, 4, 5, 6, 7], "every match, in order, including its own write");
      a.eq(resource.pages, 2, "pages of three");
    },
  },
  {
    name: "reads by name and by _self, readDocuments, stale etags and missing documents reach the callback",
    async run(ctx) {
      const { container } = await ctx.container();
      const { resource: stored } = await container.items.create({ id: "r1", pk: "p", v: 1 });
      await container.items.create({ id: "r2", pk: "p", v: 2 });
      const procedure = await define(container, "reads", `function reads(self, staleEtag) {
        const c = getContext().getCollection();
        const out = {};
        c.readDocument(self, (err, bySelf) => {
          out.bySelf = bySelf.id;
          c.readDocument(c.getAltLink() + "/docs/r2", {}, (err2, byName) => {
            out.byName = byName.v;
            c.readDocuments(c.getSelfLink(), { pageSize: 10 }, (err3, all) => {
              out.all = all.map((d) => d.id).sort();
              c.replaceDocument(self, { id: "r1", pk: "p", v: 9 }, { etag: staleEtag }, (err4) => {
                out.stale = err4 && err4.number;
                c.deleteDocument(c.getAltLink() + "/docs/nothing", (err5) => {
                  out.missing = err5 && err5.number;
                  out.missingBody = err5 && err5.body;
                  getContext().getResponse().setBody(out);
                });
              });
            });
          });
        });
      }`);
      const { resource } = await procedure.execute("p", [stored._self, '"not-the-etag"']);
      a.eq(resource.bySelf, "r1", "by _self");
      a.eq(resource.byName, 2, "by name");
      a.deepEq(resource.all, ["r1", "r2"], "readDocuments");
      a.eq(resource.stale, 412, "stale etag");
      a.eq(resource.missing, 404, "missing document");
      a.ok(JSON.parse(resource.missingBody).Errors.length === 1, "err.body is the service's {Errors: [...]}");
      a.eq((await container.item("r1", "p").read()).resource.v, 1, "r1 unchanged");
    },
  },
  {
    name: "one logical partition: other partitions are invisible, and a write to one is refused",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "mine", pk: "a" });
      await container.items.create({ id: "theirs", pk: "b" });
      const procedure = await define(container, "scope", `function scope() {
        const c = getContext().getCollection();
        c.queryDocuments(c.getSelfLink(), "SELECT VALUE r.id FROM r", (err, ids) => {
          c.readDocument(c.getAltLink() + "/docs/theirs", (readErr) => {
            c.createDocument(c.getSelfLink(), { id: "stray", pk: "b" }, (createErr) => {
              c.createDocument("dbs/other/colls/elsewhere", { id: "far", pk: "a" }, (linkErr) => {
                getContext().getResponse().setBody({ ids, read: readErr.number, create: createErr.number, link: linkErr.number });
              });
            });
          });
        });
      }`);
      const { resource } = await procedure.execute("a", []);
      a.deepEq(resource, { ids: ["mine"], read: 404, create: 400, link: 400 }, "scope");
      await a.rejects(container.item("stray", "b").read(), 404, "nothing written to b");
    },
  },
  {
    name: "the chain API: filter, map, pluck, sortBy, chain().value(), and results to the body without a callback",
    async run(ctx) {
      const { container } = await ctx.container();
      for (const [id, age] of [["ann", 31], ["bob", 17], ["cy", 45]]) await container.items.create({ id, pk: "p", age });
      const procedure = await define(container, "chains", `function chains() {
        const out = {};
        const accepted = __.chain().filter((d) => d.age >= 18).sortByDescending((d) => d.age).pluck("id").value({}, (err, ids) => {
          if (err) throw err;
          out.adults = ids;
          __.map((d) => ({ who: d.id, teen: d.age < 20 }), (err2, mapped) => {
            out.teens = mapped.filter((m) => m.teen).map((m) => m.who);
            __.sortBy("age", (err3, sorted) => {
              out.youngest = sorted[0].id;
              getContext().getResponse().setBody(JSON.stringify(out));
              __.filter((d) => d.id === "cy");  // no callback: appended to the body
            });
          });
        });
        if (!accepted.isAccepted) throw new Error("not accepted");
      }`);
      const { resource } = await procedure.execute("p", []);
      const [first, appended] = resource.split("}[");
      a.deepEq(JSON.parse(first + "}"), { adults: ["cy", "ann"], teens: ["bob"], youngest: "bob" }, "chains");
      a.eq(JSON.parse("[" + appended)[0].id, "cy", "appended results");
    },
  },
  {
    name: "the documented async/await pattern: promises over the callbacks; abort() from a catch, or a rejection nobody handles, rolls back",
    async run(ctx) {
      const { container } = await ctx.container();
      for (let i = 0; i < 5; i++) await container.items.create({ id: `a${i}`, pk: "p", n: i });
      const helpers = `
        const query = (sql, options) => new Promise((resolve, reject) => {
          const accepted = __.queryDocuments(__.getSelfLink(), sql, options, (err, feed, responseOptions) => {
            if (err) reject(err); else resolve({ feed, responseOptions });
          });
          if (!accepted) reject(new Error(429, "queryDocuments was not accepted."));
        });
        const replace = (doc) => new Promise((resolve, reject) => {
          const accepted = __.replaceDocument(doc._self, doc, (err, result) => { if (err) reject(err); else resolve(result); });
          if (!accepted) reject(new Error(429, "replaceDocument was not accepted."));
        });`;
      const procedure = await define(container, "touchAll", `function touchAll(failAt) {
        ${helpers}
        async function main() {
          let continuation;
          let touched = 0;
          do {
            const { feed, responseOptions } = await query("SELECT * FROM c", { continuation, pageSize: 2 });
            for (const doc of feed) {
              if (doc.n === failAt) throw new Error(412, "refusing " + doc.id);
              doc.touched = true;
              await replace(doc);
              touched++;
            }
            continuation = responseOptions.continuation;
          } while (continuation);
          getContext().getResponse().setBody(touched);
        }
        main().catch((err) => getContext().abort(err));
      }`);
      const failed = await a.rejects(procedure.execute("p", [3]), 400, "aborted", { substatus: 412 });
      a.match(failed.message, /refusing a3/, "abort's error");
      const untouched = await container.items.query("SELECT VALUE COUNT(1) FROM c WHERE c.touched = true", { partitionKey: "p" }).fetchAll();
      a.eq(untouched.resources[0], 0, "the replaces before the abort rolled back");
      a.eq((await procedure.execute("p", [-1])).resource, 5, "all touched");
      const touched = await container.items.query("SELECT VALUE COUNT(1) FROM c WHERE c.touched = true", { partitionKey: "p" }).fetchAll();
      a.eq(touched.resources[0], 5, "committed");

      const careless = await define(container, "careless", `function careless() {
        ${helpers}
        (async () => {
          const { feed } = await query("SELECT * FROM c", {});
          feed[0].careless = true;
          await replace(feed[0]);
          throw new Error("nobody catches this");
        })();
      }`);
      const unhandled = await a.rejects(careless.execute("p", []), 400, "unhandled rejection");
      a.match(unhandled.message, /nobody catches this/, "its error");
      const carelessCount = await container.items.query("SELECT VALUE COUNT(1) FROM c WHERE c.careless = true", { partitionKey: "p" }).fetchAll();
      a.eq(carelessCount.resources[0], 0, "rolled back");
    },
  },
  {
    name: "the docs' trade-players sample: parameterized queries over an aliased FROM, two replaces, a string thrown to abort",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "ann", pk: "league", team: "red" });
      await container.items.create({ id: "bob", pk: "league", team: "blue" });
      const procedure = await define(container, "tradePlayers", `function tradePlayers(playerId1, playerId2) {
        var context = getContext();
        var container = context.getCollection();
        var response = context.getResponse();
        var player1Item, player2Item;
        var filterQuery = { query: "SELECT * FROM Players p where p.id = @playerId1", parameters: [{ name: "@playerId1", value: playerId1 }] };
        var accept = container.queryDocuments(container.getSelfLink(), filterQuery, {}, function (err, items) {
          if (err) throw new Error("Error" + err.message);
          if (items.length != 1) throw "Unable to find both names";
          player1Item = items[0];
          var filterQuery2 = { query: "SELECT * FROM Players p where p.id = @playerId2", parameters: [{ name: "@playerId2", value: playerId2 }] };
          var accept2 = container.queryDocuments(container.getSelfLink(), filterQuery2, {}, function (err2, items2) {
            if (err2) throw new Error("Error" + err2.message);
            if (items2.length != 1) throw "Unable to find both names";
            player2Item = items2[0];
            swapTeams(player1Item, player2Item);
          });
          if (!accept2) throw "Unable to read player details, abort ";
        });
        if (!accept) throw "Unable to read player details, abort ";
        function swapTeams(player1, player2) {
          var player2NewTeam = player1.team;
          player1.team = player2.team;
          player2.team = player2NewTeam;
          var accept = container.replaceDocument(player1._self, player1, function (err) {
            if (err) throw "Unable to update player 1, abort ";
            var accept2 = container.replaceDocument(player2._self, player2, function (err2) {
              if (err2) throw "Unable to update player 2, abort";
            });
            if (!accept2) throw "Unable to update player 2, abort";
          });
          if (!accept) throw "Unable to update player 1, abort";
        }
      }`);
      a.status(await procedure.execute("league", ["ann", "bob"]), 200, "traded");
      a.eq((await container.item("ann", "league").read()).resource.team, "blue", "ann");
      a.eq((await container.item("bob", "league").read()).resource.team, "red", "bob");
      const error = await a.rejects(procedure.execute("league", ["ann", "nobody"]), 400, "a missing player");
      a.match(error.message, /Unable to find both names/, "the thrown string");
    },
  },
  {
    name: "the service's script API: links, ErrorCodes, __, new Error(number, message), appendValue",
    async run(ctx) {
      const { database, container } = await ctx.container();
      const procedure = await define(container, "api", `function api() {
        const r = getContext().getResponse();
        const e = new Error(404, "gone");
        r.setBody("");
        for (let i = 0; i < 3; i++) r.appendValue("Body", i);
        r.appendBody("|" + [__.getAltLink(), __.getSelfLink() === getContext().getCollection().getSelfLink(),
          ErrorCodes.Conflict, ErrorCodes.RetryWith, e.number, e.message, e instanceof Error].join(","));
      }`);
      const { resource } = await procedure.execute("p", []);
      a.eq(resource, `012|dbs/${database.id}/colls/${container.id},true,409,449,404,gone,true`, "api");
    },
  },
  {
    name: "bounded execution: calls stop being accepted before the time limit, the caller continues, and a script that ignores it gets 408 with nothing written",
    requires: ["managed"],
    async run(ctx) {
      // Calls are accepted for 400 ms of the 500 ms: the 100 ms left let a script wrap up even on
      // a machine busy with other work (the limit is wall-clock time).
      // 60,000 creates: several executions on a quick machine (~30,000 a second in a script), a
      // few dozen on a slow one.
      const container = await shortLimitServer(ctx, 500);
      const generator = await define(container, "bulkGenerate", bulkGenerate);
      const calls = await generateAll(generator, "a", 60000);
      a.ok(calls > 1, `60,000 creates take more than one 500 ms execution (took ${calls})`);
      a.eq(await countIn(container, "a"), 60000, "every document in, once");
      const remover = await define(container, "bulkDelete", bulkDelete);
      const deleted = await deleteAll(remover, "a", "SELECT * FROM c");
      a.eq(deleted.deleted, 60000, "every document deleted");
      a.eq(await countIn(container, "a"), 0, "none left");

      const stubborn = await define(container, "stubborn", `function stubborn() {
        const c = getContext().getCollection();
        let i = 0;
        for (;;) c.createDocument(c.getSelfLink(), { id: "s" + i++, pk: "a" });
      }`);
      const started = Date.now();
      const timeout = await a.rejects(stubborn.execute("a", []), 408, "ignored the budget");
      a.match(timeout.message, /exceeded maximum alloted time/, "the service's words");
      a.ok(Date.now() - started < 3000, "stopped near its limit");
      a.eq(await countIn(container, "a"), 0, "rolled back");
      a.status(await container.items.create({ id: "after", pk: "a" }), 201, "the server goes on");
    },
    timeoutMs: 120_000,
  },
  {
    name: "a procedure that spins holds the writes, not the reads: on a data directory a read is served meanwhile",
    requires: ["managed"],
    async run(ctx) {
      const { client } = await ctx.ownServer(["--script-time-limit", "1500"], { onDisk: true });
      const { database } = await client.databases.create({ id: ctx.uid("db") });
      const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
      await container.items.create({ id: "x", pk: "p" });
      await container.scripts.storedProcedures.create({ id: "spin", body: "function spin() { for (;;) {} }" });
      const spinning = a.rejects(container.scripts.storedProcedure("spin").execute("p", []), 408, "spins to its limit");
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = Date.now();
      a.status(await container.item("x", "p").read(), 200, "a read meanwhile");
      const readMs = Date.now() - started;
      await spinning;
      a.ok(readMs < 700, `the read did not wait for the procedure (${readMs} ms)`);
    },
  },
];
