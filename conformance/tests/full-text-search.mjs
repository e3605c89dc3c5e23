// Full-text and hybrid search through @azure/cosmos: a container with a full-text policy and
// full-text indexes (kept as sent, validated with the service's messages, changeable on replace),
// FullTextContains / All / Any, ORDER BY RANK FullTextScore (BM25) and RRF of several scores, in
// one logical partition and across four physical ones, where the SDK runs the hybrid search plan:
// the statistics query on every range, one query per score, the ranks fused on the client.
import * as a from "../lib/assert.mjs";

const fullTextPolicy = { defaultLanguage: "en-US", fullTextPaths: [{ path: "/text", language: "en-US" }] };
const indexingPolicy = {
  indexingMode: "consistent",
  automatic: true,
  includedPaths: [{ path: "/*" }],
  excludedPaths: [{ path: '/"_etag"/?' }],
  fullTextIndexes: [{ path: "/text" }],
};

// The worked example of tests/sql/functions/full_text/full_text_score.test: BM25 ranks
// "bicycle" two, one, three, four; "red" four, two, then one and three; cosine to [0, 1] ranks
// three, four, two, one.
const bikes = [
  { id: "one", pk: "a", text: "blue bicycle", v: [1, 0] },
  { id: "two", pk: "b", text: "red bicycle bicycle", v: [0.9, 0.1] },
  { id: "three", pk: "c", text: "blue mountain bicycle", v: [0, 1] },
  { id: "four", pk: "d", text: "red skateboard", v: [0.5, 0.5] },
];

async function seeded(ctx, documents, options = {}) {
  const database = await ctx.database();
  const { container } = await database.containers.create(
    { id: ctx.uid("ft"), partitionKey: { paths: ["/pk"] }, fullTextPolicy, indexingPolicy },
    options,
  );
  for (const document of documents) await container.items.create(document);
  return container;
}

const ids = (resources) => resources.map((r) => r.id);

export default [
  {
    name: "full-text search: the policy and full-text indexes are kept, may change on replace, and invalid ones answer 400 with the service's messages",
    async run(ctx) {
      const container = await seeded(ctx, []);
      const { resource } = await container.read();
      a.deepEq(resource.fullTextPolicy, fullTextPolicy, "the policy comes back as sent");
      a.deepEq(resource.indexingPolicy.fullTextIndexes, indexingPolicy.fullTextIndexes, "the indexes too");
      resource.fullTextPolicy = { defaultLanguage: "en-US", fullTextPaths: [{ path: "/abstract", language: "en-US" }] };
      resource.indexingPolicy.fullTextIndexes = [{ path: "/abstract" }];
      const { resource: replaced } = await container.replace(resource);
      a.deepEq(replaced.fullTextPolicy.fullTextPaths, [{ path: "/abstract", language: "en-US" }], "a full-text policy may change");

      const database = await ctx.database();
      const cases = [
        ["a path without its slash", { defaultLanguage: "en-US", fullTextPaths: [{ path: "abstract", language: "en-US" }] }, [], "The Full Text Policy contains an invalid Path: abstract"],
        ["an unsupported language", { defaultLanguage: "spa-SPA", fullTextPaths: [] }, [], "The Full Text Policy contains an unsupported language spa-SPA. Supported languages are:"],
        ["an index on no policy path", fullTextPolicy, [{ path: "/other" }], "does not match the path specified in the Full Text Policy"],
      ];
      for (const [what, policy, fullTextIndexes, message] of cases) {
        const response = await ctx.raw({
          method: "POST",
          path: `/dbs/${encodeURIComponent(database.id)}/colls`,
          body: { id: ctx.uid("c"), partitionKey: { paths: ["/pk"] }, fullTextPolicy: policy, indexingPolicy: { fullTextIndexes } },
        });
        a.rawError(response, 400, what);
        a.includes(response.json.message, message, what);
      }
    },
  },
  {
    name: "full-text search: FullTextContains, FullTextContainsAll and FullTextContainsAny match stemmed terms and phrases across four physical partitions",
    async run(ctx) {
      // EF Core's fixture, whose counts its tests assert against the service.
      const animals = [
        "bison, beaver, moose, fox, wolf, marten, horse, shrew, hare, duck, turtle, frog",
        "beaver, otter, duck, dolphin, salmon, turtle, frog",
        "duck, bat, eagle, butterfly, sparrow",
        "bison, beaver, moose, fox, wolf, marten, horse, shrew, hare, bat",
        "duck, eagle, sparrow",
      ].map((text, i) => ({ id: `a${i + 1}`, pk: `p${i}`, text }));
      const container = await seeded(ctx, [...animals, { id: "r", pk: "q", text: "The riders were racing red bicycles" }], { offerThroughput: 40000 });
      const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
      a.eq(ranges.length, 4, "four physical partitions");
      const count = async (where) => (await container.items.query(`SELECT VALUE COUNT(1) FROM c WHERE ${where}`).fetchAll()).resources[0];
      a.eq(await count(`FullTextContains(c.text, "beaver")`), 3, "FullTextContains");
      a.eq(await count(`FullTextContainsAny(c.text, "bat", "beaver")`), 4, "FullTextContainsAny");
      a.eq(await count(`FullTextContainsAll(c.text, "beaver", "salmon", "frog")`), 1, "FullTextContainsAll");
      a.eq(await count(`FullTextContains(c.text, "Red Bicycle")`), 1, "a phrase, whatever its case and number");
      a.eq(await count(`FullTextContains(c.text, "race rider")`), 0, "a phrase is its terms in a row, in order");
      a.eq(await count(`FullTextContainsAll(c.text, "rider", "race")`), 1, "stems: riders, racing");
    },
  },
  {
    name: "full-text search: ORDER BY RANK FullTextScore lists the most relevant first (BM25), in one partition and through the hybrid plan across four",
    async run(ctx) {
      const container = await seeded(ctx, bikes, { offerThroughput: 40000 });
      const ask = async (query, options = {}) =>
        ids((await container.items.query(query, { allowUnboundedNonStreamingQueries: true, ...options }).fetchAll()).resources);
      a.deepEq(await ask(`SELECT TOP 3 c.id FROM c ORDER BY RANK FullTextScore(c.text, "bicycle")`), ["two", "one", "three"], "TOP 3");
      a.deepEq(await ask(`SELECT c.id FROM c ORDER BY RANK FullTextScore(c.text, "bicycle")`), ["two", "one", "three", "four"], "a document without the term comes last");
      a.deepEq(await ask(`SELECT c.id FROM c ORDER BY RANK FullTextScore(c.text, ["bicycle"]) OFFSET 1 LIMIT 2`), ["one", "three"], "the array form, OFFSET LIMIT");
      a.deepEq(
        await ask({ query: `SELECT TOP 2 c.id FROM c WHERE FullTextContains(c.text, "red") ORDER BY RANK FullTextScore(c.text, @term)`, parameters: [{ name: "@term", value: "bicycle" }] }),
        ["two", "four"],
        "a filter and a parameter",
      );
      a.deepEq(await ask(`SELECT TOP 3 c.id FROM c ORDER BY RANK FullTextScore(c.text, "bicycle")`, { partitionKey: "b" }), ["two"], "one logical partition");
      const search = container.items.query(`SELECT FullTextScore(c.text, "bicycle") AS score FROM c`);
      await a.rejects(search.fetchAll(), 400, "FullTextScore outside ORDER BY RANK");
    },
  },
  {
    // The server gives containers 4 physical partitions over HTTPS and 1 over HTTP (run.mjs): on
    // one, the hybrid plan's statistics and component queries read the full-text index.
    name: "full-text search: ORDER BY RANK lists scored texts, then texts without the terms, then documents without a text, through the SDK's hybrid plan",
    async run(ctx) {
      const container = await seeded(ctx, [...bikes, { id: "five", pk: "a", text: "a green kite" }, { id: "six", pk: "b" }]);
      const ask = async (query) =>
        ids((await container.items.query(query, { allowUnboundedNonStreamingQueries: true }).fetchAll()).resources);
      // Texts without the term tie at 0: across partitions the SDK may list them in either order.
      const all = await ask(`SELECT c.id FROM c ORDER BY RANK FullTextScore(c.text, "bicycle")`);
      a.deepEq(all.slice(0, 3), ["two", "one", "three"], "scored first");
      a.deepEq(all.slice(3, 5).sort(), ["five", "four"], "then the texts without the term");
      a.eq(all[5], "six", "then the document without a text");
      a.deepEq(await ask(`SELECT TOP 2 c.id FROM c ORDER BY RANK FullTextScore(c.text, "bicycle", "kite")`), ["five", "two"], "a rare term weighs more");
      a.deepEq(
        await ask(`SELECT TOP 3 c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, "bicycle"), FullTextScore(c.text, "red"), [2, 1])`),
        ["two", "one", "four"],
        "RRF",
      );
    },
  },
  {
    name: "hybrid search: RRF of full-text and vector scores, with weights, fused by the SDK in both plan shapes",
    async run(ctx) {
      const container = await seeded(ctx, bikes, { offerThroughput: 40000 });
      for (const disableHybridSearchQueryPlanOptimization of [false, true]) {
        const shape = disableHybridSearchQueryPlanOptimization ? "nested plan" : "flat plan";
        const ask = async (query) =>
          ids((await container.items.query(query, { disableHybridSearchQueryPlanOptimization }).fetchAll()).resources);
        a.deepEq(
          await ask(`SELECT TOP 4 c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, "bicycle"), FullTextScore(c.text, "red"), [2, 1])`),
          ["two", "one", "four", "three"],
          `${shape}: two full-text scores, weights [2, 1]`,
        );
        a.deepEq(
          await ask(`SELECT TOP 4 c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, "bicycle"), FullTextScore(c.text, "red"), [1, -2])`),
          ["one", "three", "two", "four"],
          `${shape}: a negative weight reverses its score`,
        );
        a.deepEq(
          await ask(`SELECT TOP 4 c.id FROM c ORDER BY RANK RRF(VectorDistance(c.v, [0, 1]), FullTextScore(c.text, "bicycle"), [2, 1])`),
          ["three", "two", "four", "one"],
          `${shape}: vector and full-text`,
        );
      }
    },
  },
];
