// Vector search through @azure/cosmos: a container with a vector embedding policy and vector
// indexes (kept as sent, validated with the service's messages), VectorDistance scores, and
// `SELECT TOP k … ORDER BY VectorDistance(…)` in one logical partition and across four physical
// ones, where the SDK merges each range's top k (the plan's non-streaming ORDER BY).
import * as a from "../lib/assert.mjs";

const DIMENSIONS = 8;
const embeddingPolicy = (distanceFunction) => ({
  vectorEmbeddings: [{ path: "/embedding", dataType: "float32", dimensions: DIMENSIONS, distanceFunction }],
});
const indexingPolicy = {
  indexingMode: "consistent",
  automatic: true,
  includedPaths: [{ path: "/*" }],
  excludedPaths: [{ path: '/"_etag"/?' }, { path: "/embedding/*" }],
  vectorIndexes: [{ path: "/embedding", type: "quantizedFlat" }],
};

// Deterministic vectors: document i points mostly along axis i % 8, tilted by its number.
function vectorOf(i) {
  const v = Array.from({ length: DIMENSIONS }, (_, d) => ((i * 31 + d * 17) % 11) / 100);
  v[i % DIMENSIONS] += 1;
  return v;
}
const dot = (x, y) => x.reduce((sum, value, d) => sum + value * y[d], 0);
const norm = (x) => Math.sqrt(dot(x, x));
const scores = {
  cosine: (x, y) => dot(x, y) / (norm(x) * norm(y)),
  dotproduct: dot,
  euclidean: (x, y) => Math.sqrt(x.reduce((sum, value, d) => sum + (value - y[d]) ** 2, 0)),
};

async function seeded(ctx, distanceFunction, options = {}) {
  const database = await ctx.database();
  const { container } = await database.containers.create(
    { id: ctx.uid("v"), partitionKey: { paths: ["/pk"] }, vectorEmbeddingPolicy: embeddingPolicy(distanceFunction), indexingPolicy },
    options,
  );
  const documents = Array.from({ length: 40 }, (_, i) => ({ id: `d${i}`, pk: `p${i % 5}`, kind: i % 2 ? "odd" : "even", embedding: vectorOf(i) }));
  for (const document of documents) await container.items.create(document);
  return { container, documents };
}

// The k most similar documents by the metric, computed here.
function expectedTop(documents, query, metric, k, keep = () => true) {
  const ascending = metric === "euclidean";
  return documents
    .filter(keep)
    .map((d) => ({ id: d.id, score: scores[metric](d.embedding, query) }))
    .sort((x, y) => (ascending ? x.score - y.score : y.score - x.score))
    .slice(0, k);
}

// The container keeps embeddings as float32 (the policy's dataType) and scores them in float32, as
// the service does: scores agree with these double-precision ones to about 1e-7.
function sameScores(actual, expected, what) {
  a.deepEq(actual.map((r) => r.id), expected.map((r) => r.id), `${what}: ids in order`);
  for (let i = 0; i < actual.length; i++) {
    a.ok(Math.abs(actual[i].score - expected[i].score) < 1e-6, `${what}: score of ${actual[i].id} ${actual[i].score} vs ${expected[i].score}`);
  }
}

const query = [0.9, 0.1, 0, 0.2, 0, 0, 0.1, 0];

export default [
  {
    name: "vector search: the policy and vector indexes are kept; TOP k ORDER BY VectorDistance lists the most similar first (cosine, dotproduct, euclidean)",
    async run(ctx) {
      for (const metric of ["cosine", "dotproduct", "euclidean"]) {
        const { container, documents } = await seeded(ctx, metric);
        const { resource: definition } = await container.read();
        a.deepEq(definition.vectorEmbeddingPolicy, embeddingPolicy(metric), `${metric}: the policy comes back as sent`);
        a.deepEq(definition.indexingPolicy.vectorIndexes, indexingPolicy.vectorIndexes, `${metric}: the vector indexes too`);
        const { resources } = await container.items
          .query({
            query: "SELECT TOP 5 c.id, VectorDistance(c.embedding, @q) AS score FROM c ORDER BY VectorDistance(c.embedding, @q)",
            parameters: [{ name: "@q", value: query }],
          })
          .fetchAll();
        sameScores(resources, expectedTop(documents, query, metric, 5), metric);
      }
    },
  },
  {
    name: "vector search: across four physical partitions the SDK merges each range's top k; filters and one logical partition work",
    async run(ctx) {
      const { container, documents } = await seeded(ctx, "cosine", { offerThroughput: 40000 });
      const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
      a.eq(ranges.length, 4, "four physical partitions");
      const ask = async (text, options) =>
        (await container.items.query({ query: text, parameters: [{ name: "@q", value: query }] }, options).fetchAll()).resources;
      sameScores(
        await ask("SELECT TOP 7 c.id, VectorDistance(c.embedding, @q) AS score FROM c ORDER BY VectorDistance(c.embedding, @q)"),
        expectedTop(documents, query, "cosine", 7),
        "cross-partition",
      );
      sameScores(
        await ask("SELECT TOP 4 c.id, VectorDistance(c.embedding, @q) AS score FROM c WHERE c.kind = 'odd' ORDER BY VectorDistance(c.embedding, @q)"),
        expectedTop(documents, query, "cosine", 4, (d) => d.kind === "odd"),
        "with a filter",
      );
      sameScores(
        await ask("SELECT TOP 3 c.id, VectorDistance(c.embedding, @q) AS score FROM c ORDER BY VectorDistance(c.embedding, @q)", { partitionKey: "p2" }),
        expectedTop(documents, query, "cosine", 3, (d) => d.pk === "p2"),
        "one logical partition",
      );
      // The distance function named in the call wins over the policy's.
      sameScores(
        await ask("SELECT TOP 3 c.id, VectorDistance(c.embedding, @q, false, {'distanceFunction': 'euclidean'}) AS score FROM c ORDER BY VectorDistance(c.embedding, @q, false, {'distanceFunction': 'euclidean'})"),
        expectedTop(documents, query, "euclidean", 3),
        "an option over the policy",
      );
      // OFFSET LIMIT instead of TOP.
      const page = await ask("SELECT c.id, VectorDistance(c.embedding, @q) AS score FROM c ORDER BY VectorDistance(c.embedding, @q) OFFSET 2 LIMIT 3");
      sameScores(page, expectedTop(documents, query, "cosine", 5).slice(2), "OFFSET 2 LIMIT 3");
    },
  },
  {
    name: "vector search: invalid vector policies answer 400 with the service's messages",
    async run(ctx) {
      const database = await ctx.database();
      const cases = [
        ["an index without its embedding", { vectorEmbeddings: [] }, [{ path: "/embedding", type: "flat" }], "not matching in Embedding's path"],
        ["an unknown index type", embeddingPolicy("cosine"), [{ path: "/embedding", type: "notFlat" }], "Index Type::notFlat is invalid"],
        ["an unknown distance function", { vectorEmbeddings: [{ path: "/e", dataType: "float32", dimensions: 8, distanceFunction: "handMeasured" }] }, [], "invalid DistanceFunction:handMeasured"],
        ["too many dimensions", { vectorEmbeddings: [{ path: "/e", dataType: "float32", dimensions: 8000, distanceFunction: "cosine" }] }, [], "Dimensions:8000 which is more than the maximum supported value"],
      ];
      for (const [what, vectorEmbeddingPolicy, vectorIndexes, message] of cases) {
        const response = await ctx.raw({
          method: "POST",
          path: `/dbs/${encodeURIComponent(database.id)}/colls`,
          body: { id: ctx.uid("c"), partitionKey: { paths: ["/pk"] }, vectorEmbeddingPolicy, indexingPolicy: { vectorIndexes } },
        });
        a.rawError(response, 400, what);
        a.includes(response.json.message, message, what);
      }
      const { container } = await database.containers.create({
        id: ctx.uid("c"), partitionKey: { paths: ["/pk"] }, vectorEmbeddingPolicy: embeddingPolicy("cosine"), indexingPolicy,
      });
      const { resource } = await container.read();
      resource.indexingPolicy.vectorIndexes = [{ path: "/embedding", type: "flat" }];
      await a.rejects(container.replace(resource), 400, "vector indexes cannot change");
      // A query vector of other dimensions than the policy's, or not of numbers.
      for (const [what, value] of [["3 dimensions", [1, 0, 0]], ["strings", Array(DIMENSIONS).fill("x")]]) {
        const search = container.items.query({
          query: "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.embedding, @q)",
          parameters: [{ name: "@q", value }],
        });
        await a.rejects(search.fetchAll(), 400, `a query vector of ${what}`);
      }
    },
  },
];
