// Pre- and post-triggers named by a write (preTriggerInclude / postTriggerInclude): a pre-trigger
// that stamps or renames the document, one that rejects it, one that guards a delete; a
// post-trigger that keeps a metadata document in the same transaction, one that aborts the
// write; and the 400s for a trigger that is missing, of the other type or for another operation.
import * as a from "../lib/assert.mjs";

async function trigger(container, id, triggerType, triggerOperation, body) {
  await container.scripts.triggers.create({ id, triggerType, triggerOperation, body });
}

export default [
  {
    name: "a pre-trigger stamps the document it is about to write: create, upsert and replace",
    async run(ctx) {
      const { container } = await ctx.container();
      await trigger(container, "stamp", "Pre", "All", `function stamp() {
        const request = getContext().getRequest();
        const doc = request.getBody();
        doc.stampedBy = request.getOperationType();
        doc.size = doc.items ? doc.items.length : 0;
        request.setBody(doc);
      }`);
      const created = await container.items.create({ id: "o1", pk: "p", items: [1, 2] }, { preTriggerInclude: ["stamp"] });
      a.status(created, 201, "create");
      a.eq(created.resource.stampedBy, "Create", "stamped on create");
      a.eq(created.resource.size, 2, "computed");
      a.charge(created.headers, "create with a trigger");
      const upserted = await container.items.upsert({ id: "o1", pk: "p", items: [1] }, { preTriggerInclude: ["stamp"] });
      a.eq(upserted.resource.stampedBy, "Upsert", "stamped on upsert");
      const replaced = await container.item("o1", "p").replace({ id: "o1", pk: "p" }, { preTriggerInclude: ["stamp"] });
      a.eq(replaced.resource.stampedBy, "Replace", "stamped on replace");
      a.eq((await container.item("o1", "p").read()).resource.size, 0, "stored as stamped");
      const plain = await container.items.create({ id: "o2", pk: "p" });
      a.eq(plain.resource.stampedBy, undefined, "a write that names no trigger runs none");
    },
  },
  {
    name: "a pre-trigger may rename the document (the SDK's own trigger test)",
    async run(ctx) {
      const { container } = await ctx.container();
      await trigger(container, "t1", "Pre", "Create", `function t1() {
        const item = getContext().getRequest().getBody();
        item.id = item.id.toUpperCase() + "t1";
        getContext().getRequest().setBody(item);
      }`);
      await trigger(container, "nothing", "Pre", "Create", "function () { }");
      const created = await container.items.create({ id: "doc1", pk: "p" }, { preTriggerInclude: ["t1"] });
      a.eq(created.resource.id, "DOC1t1", "renamed");
      a.match(created.headers["content-location"] ?? "", /\/docs\/DOC1t1$/, "located under the new id");
      a.status(await container.item("DOC1t1", "p").read(), 200, "stored under the new id");
      const unchanged = await container.items.create({ id: "doc2", pk: "p" }, { preTriggerInclude: ["nothing"] });
      a.eq(unchanged.resource.id, "doc2", "an empty trigger changes nothing");
    },
  },
  {
    name: "a pre-trigger that throws rejects the write: 400 with its message, nothing stored",
    async run(ctx) {
      const { container } = await ctx.container();
      await trigger(container, "validate", "Pre", "Create", `function validate() {
        const doc = getContext().getRequest().getBody();
        if (!("timestamp" in doc)) throw new Error("The document needs a timestamp.");
      }`);
      const error = await a.rejects(container.items.create({ id: "bad", pk: "p" }, { preTriggerInclude: ["validate"] }), 400, "rejected");
      a.match(error.message, /Exception = Error: The document needs a timestamp\./, "the trigger's message");
      await a.rejects(container.item("bad", "p").read(), 404, "not stored");
      a.status(await container.items.create({ id: "good", pk: "p", timestamp: 1 }, { preTriggerInclude: ["validate"] }), 201, "accepted");
    },
  },
  {
    name: "a pre-trigger on delete sees the stored document and may refuse",
    async run(ctx) {
      const { container } = await ctx.container();
      await trigger(container, "guard", "Pre", "Delete", `function guard() {
        if (getContext().getRequest().getBody().locked) throw new Error(403, "locked");
      }`);
      await container.items.create({ id: "locked", pk: "p", locked: true });
      await container.items.create({ id: "free", pk: "p", locked: false });
      await a.rejects(container.item("locked", "p").delete({ preTriggerInclude: ["guard"] }), 400, "refused", { substatus: 403 });
      a.status(await container.item("locked", "p").read(), 200, "still there");
      a.status(await container.item("free", "p").delete({ preTriggerInclude: ["guard"] }), 204, "deleted");
    },
  },
  {
    name: "a post-trigger updates a metadata document in the same transaction, and sees what was written",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "_metadata", pk: "p", count: 0, lastId: null });
      await trigger(container, "updateMetadata", "Post", "Create", `function updateMetadata() {
        const created = getContext().getResponse().getBody();
        const requested = getContext().getRequest().getBody();
        if (created.id !== requested.id || !created._etag) throw new Error("unexpected bodies");
        const collection = getContext().getCollection();
        const accepted = collection.queryDocuments(collection.getSelfLink(), 'SELECT * FROM root r WHERE r.id = "_metadata"', (err, found) => {
          if (err) throw new Error("Error " + err.message);
          const metadata = found[0];
          metadata.count += 1;
          metadata.lastId = created.id;
          collection.replaceDocument(metadata._self, metadata, (replaceErr) => { if (replaceErr) throw replaceErr; });
        });
        if (!accepted) throw new Error("The query was not accepted by the server.");
      }`);
      for (const id of ["a", "b", "c"]) await container.items.create({ id, pk: "p" }, { postTriggerInclude: ["updateMetadata"] });
      const { resource: metadata } = await container.item("_metadata", "p").read();
      a.eq(metadata.count, 3, "counted");
      a.eq(metadata.lastId, "c", "last");
    },
  },
  {
    name: "a post-trigger that throws aborts the write and its own changes",
    async run(ctx) {
      const { container } = await ctx.container();
      await container.items.create({ id: "audit", pk: "p", n: 0 });
      await trigger(container, "abort", "Post", "All", `function abort() {
        const c = getContext().getCollection();
        c.upsertDocument(c.getSelfLink(), { id: "audit", pk: "p", n: 1 }, (err) => {
          if (err) throw err;
          throw new Error(409, "no thanks");
        });
      }`);
      await a.rejects(container.items.create({ id: "x", pk: "p" }, { postTriggerInclude: ["abort"] }), 400, "aborted", { substatus: 409 });
      await a.rejects(container.item("x", "p").read(), 404, "the write rolled back");
      a.eq((await container.item("audit", "p").read()).resource.n, 0, "the trigger's write rolled back");
    },
  },
  {
    name: "a trigger that is missing, of the other type, or for another operation is 400; so are triggers on a procedure",
    async run(ctx) {
      const { container } = await ctx.container();
      await trigger(container, "onDelete", "Post", "Delete", "function () { }");
      await trigger(container, "pre", "Pre", "All", "function () { }");
      await a.rejects(container.items.create({ id: "d", pk: "p" }, { postTriggerInclude: ["onDelete"] }), 400, "a delete trigger on a create");
      await a.rejects(container.items.create({ id: "d", pk: "p" }, { postTriggerInclude: ["pre"] }), 400, "a pre-trigger named as post");
      await a.rejects(container.items.create({ id: "d", pk: "p" }, { preTriggerInclude: ["absent"] }), 400, "a missing trigger");
      await a.rejects(container.item("d", "p").read(), 404, "nothing written");
      await container.scripts.storedProcedures.create({ id: "noop", body: "function () { }" });
      await a.rejects(container.scripts.storedProcedure("noop").execute("p", [], { preTriggerInclude: ["pre"] }), 400, "a procedure with triggers");
    },
  },
];
