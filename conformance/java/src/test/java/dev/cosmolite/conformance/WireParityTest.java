package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import com.azure.cosmos.BridgeInternal;
import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosBridgeInternal;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.CosmosDiagnostics;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.implementation.DatabaseAccount;
import com.azure.cosmos.implementation.DatabaseAccountLocation;
import com.azure.cosmos.implementation.QueryMetrics;
import com.azure.cosmos.models.ChangeFeedPolicy;
import com.azure.cosmos.models.ComputedProperty;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.CosmosConflictProperties;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.IndexingPolicy;
import com.azure.cosmos.models.ModelBridgeInternal;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.PartitionKeyBuilder;
import com.azure.cosmos.models.PartitionKeyDefinition;
import com.azure.cosmos.models.PartitionKind;
import com.azure.cosmos.models.PartitionKeyDefinitionVersion;
import com.azure.cosmos.models.SpatialSpec;
import com.azure.cosmos.models.SpatialType;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cosmolite.conformance.support.CosmosTest;
import dev.cosmolite.conformance.support.Diagnostics;
import dev.cosmolite.conformance.support.Env;
import dev.cosmolite.conformance.support.KnownGap;
import org.junit.jupiter.api.Test;

/**
 * Behaviours an earlier survey found broken or missing in cosmolite, each asserted as the real service behaves
 * (see the README of this folder for the sources checked). Those cosmolite does not do yet are marked
 * {@code @KnownGap("what cosmolite does instead")}: reported as "known gap" while they fail, failing the run once they pass.
 */
class WireParityTest extends CosmosTest {
    static final String RANGE_HEADER = "x-ms-documentdb-partitionkeyrangeid";

    private static List<JsonNode> rows(CosmosContainer container, String sql, CosmosQueryRequestOptions options) {
        return container.queryItems(sql, options, JsonNode.class).stream().collect(Collectors.toList());
    }

    /** The partition key range ids whose Document:Query requests served every page of a query. */
    private static Set<String> rangesOfQuery(CosmosContainer container, SqlQuerySpec spec, List<JsonNode> out) {
        Set<String> ranges = new LinkedHashSet<>();
        for (FeedResponse<JsonNode> page : container.queryItems(spec, new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage()) {
            out.addAll(page.getResults());
            ranges.addAll(rangesServing(page.getCosmosDiagnostics(), "Document:Query"));
        }
        return ranges;
    }

    // ------------------------------------------------------------------ routing and partition key ranges

    @Test
    void queryWhoseFilterPinsOnePartitionKeyIsServedBySinglePartition() {
        CosmosContainer container = newPartitionedContainer();
        for (int i = 0; i < 40; i++) container.createItem(doc("id", "i" + i, "pk", "p" + (i % 8), "n", i));
        String[] queries = {
            "SELECT * FROM c WHERE c.pk = @pk",
            "SELECT * FROM c WHERE c.pk = @pk ORDER BY c.n DESC",
            "SELECT VALUE COUNT(1) FROM c WHERE c.pk = @pk",
            "SELECT VALUE SUM(c.n) FROM c WHERE c.pk = @pk AND c.n > 0",
        };
        for (String sql : queries) {
            List<JsonNode> out = new ArrayList<>();
            Set<String> ranges = rangesOfQuery(container, new SqlQuerySpec(sql, List.of(new SqlParameter("@pk", "p3"))), out);
            assertEquals(1, ranges.size(), "'" + sql + "' (no partition key option) should be sent to the one range of p3, "
                + "as the service's query plan gives a point queryRanges; ranges contacted: " + ranges);
            assertFalse(out.isEmpty(), sql + ": rows");
        }
        List<JsonNode> ordered = new ArrayList<>();
        rangesOfQuery(container, new SqlQuerySpec(queries[1], List.of(new SqlParameter("@pk", "p3"))), ordered);
        assertEquals(List.of(35, 27, 19, 11, 3), ints(ordered, "n"), "ORDER BY result");
        List<JsonNode> count = new ArrayList<>();
        rangesOfQuery(container, new SqlQuerySpec(queries[2], List.of(new SqlParameter("@pk", "p3"))), count);
        assertEquals(5, count.get(0).asInt(), "COUNT result");
    }

    @Test
    void queryPinningAFullHierarchicalKeyIsServedBySinglePartition() {
        CosmosDatabase db = newDatabase();
        CosmosContainer container = newContainerFromJson(db, "{\"id\":\"" + uid("h") + "\",\"partitionKey\":{\"paths\":[\"/t\",\"/u\"],"
            + "\"kind\":\"MultiHash\",\"version\":2}}", ThroughputProperties.createManualThroughput(40_000));
        assertEquals(4, container.getFeedRanges().size(), "four physical partitions");
        for (int i = 0; i < 24; i++) container.createItem(doc("id", "h" + i, "t", "t" + (i % 3), "u", "u" + (i % 4), "n", i));
        List<JsonNode> out = new ArrayList<>();
        Set<String> ranges = rangesOfQuery(container, new SqlQuerySpec(
            "SELECT * FROM c WHERE c.t = 't1' AND c.u = 'u1' ORDER BY c.n"), out);
        assertEquals(List.of(1, 13), ints(out, "n"), "rows of t1/u1");
        assertEquals(1, ranges.size(), "a filter on the full hierarchical key is served by one range; contacted " + ranges);
    }

    @Test
    void unorderedResultsComeInInsertionOrderWithinAPartition() {
        CosmosContainer container = newContainer();
        String[] ids = {"m", "c", "x", "a", "q", "b", "z", "k"};
        for (int i = 0; i < ids.length; i++) {
            container.createItem(doc("id", ids[i], "pk", "p" + (ids.length - i), "n", 100 - i, "cat", "same"));
        }
        List<String> expected = List.of(ids);
        for (String sql : new String[] {"SELECT * FROM c", "SELECT c.id FROM c WHERE c.cat = 'same'", "SELECT c.id FROM c WHERE c.n > 0"}) {
            List<String> got = rows(container, sql, new CosmosQueryRequestOptions()).stream().map(r -> r.get("id").asText())
                .collect(Collectors.toList());
            assertEquals(expected, got, "'" + sql + "' returns documents in _rid (insertion) order");
        }
    }

    @Test
    void responsesNameTheServingRangeAndSessionTokensNameThatRange() {
        CosmosContainer container = newPartitionedContainer();
        // which range holds which partition key: ask each feed range for its documents
        for (int i = 0; i < 16; i++) container.createItem(doc("id", "i" + i, "pk", "p" + i, "n", i));
        Map<String, String> rangeOfKey = new HashMap<>();
        for (FeedRange range : container.getFeedRanges()) {
            for (FeedResponse<JsonNode> page : container.queryItems("SELECT * FROM c",
                new CosmosQueryRequestOptions().setFeedRange(range), JsonNode.class).iterableByPage()) {
                Set<String> served = rangesServing(page.getCosmosDiagnostics(), "Document:Query");
                for (JsonNode row : page.getResults()) {
                    assertEquals(1, served.size(), "a feed range query page comes from one range");
                    rangeOfKey.put(row.get("pk").asText(), served.iterator().next());
                }
            }
        }
        assertEquals(16, rangeOfKey.size(), "every key located");
        for (int i = 0; i < 16; i++) {
            String key = "p" + i;
            String expectedRange = rangeOfKey.get(key);
            CosmosItemResponse<ObjectNode> write = container.upsertItem(doc("id", "i" + i, "pk", key, "n", i, "v", 2));
            CosmosItemResponse<ObjectNode> read = container.readItem("i" + i, new PartitionKey(key), ObjectNode.class);
            for (CosmosItemResponse<?> response : List.of(write, read)) {
                assertEquals(expectedRange, response.getResponseHeaders().get(RANGE_HEADER),
                    "x-ms-documentdb-partitionkeyrangeid of a point operation on " + key);
                String token = response.getSessionToken();
                assertNotNull(token, "session token");
                assertEquals(expectedRange, token.substring(0, token.indexOf(':')),
                    "the session token names the range of " + key + ": " + token);
            }
            FeedResponse<JsonNode> page = first(container.queryItems("SELECT * FROM c",
                new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey(key)), JsonNode.class).iterableByPage());
            assertEquals(expectedRange, page.getResponseHeaders().get(RANGE_HEADER),
                "x-ms-documentdb-partitionkeyrangeid of a query scoped to " + key);
            String queryToken = page.getSessionToken();
            assertNotNull(queryToken, "query session token");
            assertTrue(queryToken.startsWith(expectedRange + ":"), "query session token names the range: " + queryToken);
        }
    }

    @Test
    void containerRecreatedByAnotherClientIsPickedUpByTheCachingClient() {
        CosmosDatabase db = newDatabase();
        String name = uid("c");
        db.createContainer(new CosmosContainerProperties(name, "/pk"), ThroughputProperties.createManualThroughput(40_000));
        CosmosContainer cached = db.getContainer(name);
        cached.createItem(doc("id", "old", "pk", "a", "other", "b"));
        assertEquals(1, rows(cached, "SELECT * FROM c", new CosmosQueryRequestOptions()).size());

        try (CosmosClient other = Env.newClient()) {
            CosmosDatabase otherDb = other.getDatabase(db.getId());
            otherDb.getContainer(name).delete();
            otherDb.createContainer(new CosmosContainerProperties(name, "/other"));
            otherDb.getContainer(name).createItem(doc("id", "fresh", "pk", "x", "other", "y", "n", 1));
        }

        // The caching client still holds the old _rid and partition key definition.
        CosmosItemResponse<ObjectNode> created = cached.createItem(doc("id", "new", "pk", "z", "other", "w"));
        assertEquals(201, created.getStatusCode(), "write through the stale cache");
        boolean sawStaleRid = Diagnostics.gatewayCalls(created.getDiagnostics()).stream()
            .anyMatch(c -> c.statusCode == 400 && c.subStatusCode == 1024);
        assertEquals("w", cached.readItem("new", new PartitionKey("w"), ObjectNode.class).getItem().get("other").asText(),
            "the item went to the new container, partitioned by /other");
        assertEquals(1, cached.readItem("fresh", new PartitionKey("y"), ObjectNode.class).getItem().get("n").asInt(),
            "reads see the new container");
        assertCosmos(404, "the old container's item is gone", () -> cached.readItem("old", new PartitionKey("a"), ObjectNode.class));
        List<String> ids = rows(cached, "SELECT VALUE c.id FROM c", new CosmosQueryRequestOptions()).stream()
            .map(JsonNode::asText).sorted().collect(Collectors.toList());
        assertEquals(List.of("fresh", "new"), ids, "a cross-partition query sees the new container only");
        assertTrue(sawStaleRid, "the first write carried x-ms-cosmos-intended-collection-rid of the deleted container: the service "
            + "answers 400/1024 so that the SDK refreshes its cache; calls: " + Diagnostics.gatewayCalls(created.getDiagnostics()));
    }

    // ------------------------------------------------------------------ headers and metrics

    @Test
    void pointOperationsCarryContentLocation() {
        CosmosContainer container = newContainer();
        String expectedPath = "dbs/" + database.getId() + "/colls/" + container.getId();
        List<CosmosItemResponse<?>> responses = new ArrayList<>();
        responses.add(container.createItem(doc("id", "a", "pk", "p")));
        responses.add(container.readItem("a", new PartitionKey("p"), ObjectNode.class));
        responses.add(container.replaceItem(doc("id", "a", "pk", "p", "v", 1), "a", new PartitionKey("p"), new CosmosItemRequestOptions()));
        responses.add(container.upsertItem(doc("id", "a", "pk", "p", "v", 2)));
        String[] names = {"create", "read", "replace", "upsert"};
        for (int i = 0; i < responses.size(); i++) {
            String location = headerIgnoreCase(responses.get(i).getResponseHeaders(), "Content-Location");
            assertNotNull(location, names[i] + ": Content-Location header");
            assertTrue(location.contains(expectedPath), names[i] + ": Content-Location " + location + " names " + expectedPath);
        }
    }

    private static String headerIgnoreCase(Map<String, String> headers, String name) {
        for (Map.Entry<String, String> e : headers.entrySet()) if (e.getKey().equalsIgnoreCase(name)) return e.getValue();
        return null;
    }

    @Test
    void queryMetricsAndIndexUtilization() {
        CosmosContainer container = newContainer();
        for (int i = 0; i < 10; i++) container.createItem(doc("id", "i" + i, "pk", "p", "name", "n" + (i % 2), "n", i));
        CosmosQueryRequestOptions options = new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p"))
            .setQueryMetricsEnabled(true).setIndexMetricsEnabled(true);
        FeedResponse<JsonNode> page = first(container.queryItems("SELECT * FROM c WHERE c.name = 'n1'", options, JsonNode.class)
            .iterableByPage());
        assertEquals(5, page.getResults().size());
        String metricsHeader = page.getResponseHeaders().get("x-ms-documentdb-query-metrics");
        assertNotNull(metricsHeader, "x-ms-documentdb-query-metrics with populatequerymetrics");
        Map<String, QueryMetrics> metrics = BridgeInternal.queryMetricsFromFeedResponse(page);
        assertFalse(metrics.isEmpty(), "the SDK parsed the query metrics");
        QueryMetrics qm = metrics.values().iterator().next();
        assertEquals(5, qm.getOutputDocumentCount(), "outputDocumentCount");
        assertTrue(qm.getRetrievedDocumentCount() >= 5, "retrievedDocumentCount");
        assertTrue(qm.getTotalQueryExecutionTime().toNanos() >= 0, "totalExecutionTimeInMs");

        String utilization = page.getResponseHeaders().get("x-ms-cosmos-index-utilization");
        assertNotNull(utilization, "x-ms-cosmos-index-utilization with x-ms-cosmos-populateindexmetrics");
        JsonNode info = json(new String(Base64.getDecoder().decode(utilization), StandardCharsets.UTF_8));
        for (String key : new String[] {"UtilizedSingleIndexes", "PotentialSingleIndexes", "UtilizedCompositeIndexes",
            "PotentialCompositeIndexes"}) {
            assertTrue(info.path(key).isArray(), "index utilization has " + key + ": " + info);
        }
        assertTrue(info.get("UtilizedSingleIndexes").toString().contains("/name"),
            "the filter on /name used its index: " + info);
        assertNotNull(qm.getIndexUtilizationInfo(), "the SDK parsed the index utilization");
    }

    // ------------------------------------------------------------------ SQL and container definitions

    @Test
    void joinOverObjectToArray() {
        CosmosContainer container = newContainer();
        container.createItem(doc("id", "a", "pk", "p", "props", Map.of("color", "red", "size", 3)));
        container.createItem(doc("id", "b", "pk", "p", "props", Map.of("color", "blue")));
        List<JsonNode> out = rows(container, "SELECT c.id, p.k, p.v FROM c JOIN p IN ObjectToArray(c.props) ORDER BY c.id",
            new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p")));
        List<String> flat = out.stream().map(r -> r.get("id").asText() + ":" + r.get("k").asText() + "=" + r.get("v").asText())
            .sorted().collect(Collectors.toList());
        assertEquals(List.of("a:color=red", "a:size=3", "b:color=blue"), flat, "one row per property");
    }

    @Test
    void legacyIndexingPolicyShapesAreAccepted() {
        CosmosDatabase db = newDatabase();
        String json = "{\"id\":\"" + uid("legacy") + "\",\"partitionKey\":{\"paths\":[\"/pk\"],\"kind\":\"Hash\"},"
            + "\"indexingPolicy\":{\"indexingMode\":\"consistent\",\"automatic\":true,"
            + "\"includedPaths\":[{\"path\":\"/*\",\"indexes\":[{\"kind\":\"Range\",\"dataType\":\"Number\",\"precision\":-1},"
            + "{\"kind\":\"Hash\",\"dataType\":\"String\",\"precision\":3},{\"kind\":\"Spatial\",\"dataType\":\"Point\"}]}],"
            + "\"excludedPaths\":[{\"path\":\"/\\\"_etag\\\"/?\"}]}}";
        CosmosContainer container = newContainerFromJson(db, json, null);
        IndexingPolicy policy = container.read().getProperties().getIndexingPolicy();
        assertTrue(policy.getIncludedPaths().stream().anyMatch(p -> p.getPath().equals("/*")), "included /* kept");
        container.createItem(doc("id", "a", "pk", "p", "n", 5, "s", "x"));
        assertEquals(1, rows(container, "SELECT * FROM c WHERE c.n > 1 AND c.s = 'x'", new CosmosQueryRequestOptions()).size(),
            "queries work on a legacy policy");
    }

    @Test
    void spatialIndexOnAPointPathIsAccepted() {
        CosmosDatabase db = newDatabase();
        CosmosContainerProperties properties = new CosmosContainerProperties(uid("geo"), "/pk");
        IndexingPolicy policy = new IndexingPolicy();
        policy.setSpatialIndexes(List.of(new SpatialSpec().setPath("/location/?")
            .setSpatialTypes(List.of(SpatialType.POINT, SpatialType.POLYGON))));
        properties.setIndexingPolicy(policy);
        CosmosContainer container = newContainer(db, properties, null);
        assertEquals(1, container.read().getProperties().getIndexingPolicy().getSpatialIndexes().size(), "spatial index kept");
        container.createItem(doc("id", "a", "pk", "p", "location", Map.of("type", "Point", "coordinates", List.of(-122.12, 47.66))));
        assertEquals(1, rows(container, "SELECT * FROM c WHERE ST_DISTANCE(c.location, {'type': 'Point', 'coordinates': [-122.11, 47.66]}) < 2000",
            new CosmosQueryRequestOptions()).size(), "ST_DISTANCE over the indexed point");
    }

    @Test
    void geometrySpatialIndexWithoutABoundingBoxAnswers400() {
        CosmosDatabase db = newDatabase();
        String withBox = "{\"id\":\"" + uid("geom") + "\",\"partitionKey\":{\"paths\":[\"/pk\"],\"kind\":\"Hash\"},"
            + "\"geospatialConfig\":{\"type\":\"Geometry\"},"
            + "\"indexingPolicy\":{\"indexingMode\":\"consistent\",\"includedPaths\":[{\"path\":\"/*\"}],"
            + "\"spatialIndexes\":[{\"path\":\"/shape/*\",\"types\":[\"Polygon\"],"
            + "\"boundingBox\":{\"xmin\":0,\"ymin\":0,\"xmax\":100,\"ymax\":100}}]}}";
        CosmosContainer ok = newContainerFromJson(db, withBox, null);
        assertEquals(200, ok.read().getStatusCode(), "a geometry spatial index with a boundingBox is accepted");
        String geometry = "{\"id\":\"" + uid("geom") + "\",\"partitionKey\":{\"paths\":[\"/pk\"],\"kind\":\"Hash\"},"
            + "\"geospatialConfig\":{\"type\":\"Geometry\"},"
            + "\"indexingPolicy\":{\"indexingMode\":\"consistent\",\"includedPaths\":[{\"path\":\"/*\"}],"
            + "\"spatialIndexes\":[{\"path\":\"/shape/*\",\"types\":[\"Polygon\"]}]}}";
        assertCosmos(400, "a geometry spatial index without a boundingBox", () -> newContainerFromJson(db, geometry, null));
    }

    @Test
    void partitionKeyPathWithQuotedSpecialCharacters() {
        CosmosDatabase db = newDatabase();
        String path = "/\"level' 1*()\"/\"le/vel2\"";
        CosmosContainer container = newContainer(db, new CosmosContainerProperties(uid("c"), path),
            ThroughputProperties.createManualThroughput(40_000));
        assertEquals(List.of(path), container.read().getProperties().getPartitionKeyDefinition().getPaths(), "path kept verbatim");
        for (int i = 0; i < 8; i++) {
            ObjectNode item = doc("id", "q" + i, "n", i);
            item.putObject("level' 1*()").put("le/vel2", "v" + i);
            assertEquals(201, container.createItem(item, new PartitionKey("v" + i), new CosmosItemRequestOptions()).getStatusCode());
        }
        assertEquals(3, container.readItem("q3", new PartitionKey("v3"), ObjectNode.class).getItem().get("n").asInt(),
            "point read by the nested quoted key");
        assertCosmos(404, "the same id under another key", () -> container.readItem("q3", new PartitionKey("v4"), ObjectNode.class));
        ObjectNode wrong = doc("id", "bad");
        wrong.putObject("level' 1*()").put("le/vel2", "right");
        assertCosmos(400, 1001, "a key that disagrees with the value at the quoted path",
            () -> container.createItem(wrong, new PartitionKey("wrong"), new CosmosItemRequestOptions()));
        List<JsonNode> scoped = rows(container, "SELECT VALUE c.n FROM c",
            new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("v5")));
        assertEquals(List.of(5), ints(scoped, null), "a query scoped to one key finds its item only");
        List<JsonNode> filtered = rows(container, "SELECT VALUE c.n FROM c WHERE c[\"level' 1*()\"][\"le/vel2\"] = 'v6'",
            new CosmosQueryRequestOptions());
        assertEquals(List.of(6), ints(filtered, null), "a filter on the quoted path");
    }

    @Test
    void computedPropertiesAreUsableInQueries() {
        CosmosDatabase db = newDatabase();
        CosmosContainerProperties properties = new CosmosContainerProperties(uid("cp"), "/pk");
        properties.setComputedProperties(List.of(new ComputedProperty("cp_lower", "SELECT VALUE LOWER(c.name) FROM c")));
        CosmosContainer container = newContainer(db, properties, null);
        List<ComputedProperty> read = new ArrayList<>(container.read().getProperties().getComputedProperties());
        assertEquals(1, read.size(), "computed property kept");
        assertEquals("cp_lower", read.get(0).getName());
        container.createItem(doc("id", "a", "pk", "p", "name", "MiXeD"));
        container.createItem(doc("id", "b", "pk", "p", "name", "Other"));
        List<JsonNode> out = rows(container, "SELECT c.id, c.cp_lower FROM c WHERE c.cp_lower = 'mixed'", new CosmosQueryRequestOptions());
        assertEquals(1, out.size(), "filter on the computed property");
        assertEquals("mixed", out.get(0).get("cp_lower").asText(), "projection of the computed property");
        JsonNode star = rows(container, "SELECT * FROM c WHERE c.id = 'a'", new CosmosQueryRequestOptions()).get(0);
        assertFalse(star.has("cp_lower"), "SELECT * does not include computed properties");
        assertFalse(container.readItem("a", new PartitionKey("p"), ObjectNode.class).getItem().has("cp_lower"),
            "computed properties are not stored in the item");
    }

    @Test
    void autoscaleOfferCarriesAutopilotSettingsWithAutoUpgradePolicy() {
        CosmosDatabase db = newDatabase();
        CosmosContainer container = newContainer(db, new CosmosContainerProperties(uid("c"), "/pk"),
            ThroughputProperties.createAutoscaledThroughput(4000));
        ThroughputProperties properties = container.readThroughput().getProperties();
        JsonNode offer = json(ModelBridgeInternal.getOfferFromThroughputProperties(properties).toJson());
        JsonNode autopilot = offer.path("content").path("offerAutopilotSettings");
        assertTrue(autopilot.isObject(), "content.offerAutopilotSettings: " + offer);
        assertEquals(4000, autopilot.path("maxThroughput").asInt(), "offerAutopilotSettings.maxThroughput");
        assertTrue(autopilot.path("autoUpgradePolicy").isObject(), "offerAutopilotSettings.autoUpgradePolicy: " + autopilot);
        assertTrue(autopilot.path("autoUpgradePolicy").path("throughputPolicy").isObject(),
            "autoUpgradePolicy.throughputPolicy: " + autopilot);
        assertEquals("V2", offer.path("offerVersion").asText(), "offerVersion: " + offer);
    }

    @Test
    void conflictsFeedOfAContainerIsEmpty() {
        CosmosContainer container = newContainer();
        container.createItem(doc("id", "a", "pk", "p"));
        try (CosmosAsyncClient async = Env.newAsyncClient()) {
            CosmosAsyncContainer c = async.getDatabase(database.getId()).getContainer(container.getId());
            List<CosmosConflictProperties> all = c.readAllConflicts(new CosmosQueryRequestOptions()).collectList().block();
            assertEquals(List.of(), all, "readAllConflicts");
            List<CosmosConflictProperties> queried = c.queryConflicts("SELECT * FROM c").collectList().block();
            assertEquals(List.of(), queried, "queryConflicts");
        }
    }

    // ------------------------------------------------------------------ item validation

    @Test
    void idsWithReservedCharactersAreAcceptedByTheService() {
        // The service stores ids with ? # \ (readable by id afterwards) and even / (then only reachable through queries):
        // azure-cosmos-dotnet-v3 #2606 and #4129. Through the Java SDK an id with \ cannot be read by id on any service
        // (PathsHelper.unescapeJavaAndTrim turns "a\b" into "a<backspace>"), so \ and / are checked with a query.
        CosmosContainer container = newContainer();
        for (String id : new String[] {"a?b", "a#b", "a\\b", "a/b"}) {
            assertEquals(201, container.createItem(doc("id", id, "pk", "p")).getStatusCode(), "create id " + id);
        }
        for (String id : new String[] {"a?b", "a#b"}) {
            try {
                assertEquals(id, container.readItem(id, new PartitionKey("p"), ObjectNode.class).getItem().get("id").asText());
            } catch (CosmosException e) {
                fail("read of id " + id + ": " + e.getStatusCode() + "/" + e.getSubStatusCode() + " " + shortMessage(e)
                    + " requests: " + Diagnostics.gatewayCalls(e.getDiagnostics()));
            }
        }
        List<String> ids = rows(container, "SELECT VALUE c.id FROM c", new CosmosQueryRequestOptions()).stream()
            .map(JsonNode::asText).sorted().collect(Collectors.toList());
        assertEquals(List.of("a#b", "a/b", "a?b", "a\\b"), ids, "all four stored");
    }

    @Test
    void idLimitsAre1023BytesForItemsAnd255CharactersForContainers() {
        // The service's limits, as azure-sdk-for-python's tests/test_resource_id.py (run against the service) expects
        // them: an item id over 1,023 characters gets 400 "... less than '1024' characters.", a database or container id
        // over 255 characters gets 400 "... less than '255' characters."
        CosmosContainer container = newContainer();
        assertEquals(201, container.createItem(doc("id", "x".repeat(1023), "pk", "p")).getStatusCode(), "a 1,023-byte item id");
        CosmosException item = assertCosmos(400, "a 1,024-byte item id",
            () -> container.createItem(doc("id", "y".repeat(1024), "pk", "p")));
        assertTrue(item.getMessage().contains("Ensure to provide a unique non-empty string less than '1024' characters."),
            "message for a 1,024-byte item id: " + shortMessage(item));
        CosmosException coll = assertCosmos(400, "a 256-character container id",
            () -> database.createContainer("c".repeat(256), "/pk"));
        assertTrue(coll.getMessage().contains("Ensure to provide a unique non-empty string less than '255' characters."),
            "message for a 256-character container id: " + shortMessage(coll));
    }

    @Test
    void ttlNullAnswers400() {
        CosmosDatabase db = newDatabase();
        CosmosContainerProperties properties = new CosmosContainerProperties(uid("c"), "/pk");
        properties.setDefaultTimeToLiveInSeconds(-1);
        CosmosContainer container = newContainer(db, properties, null);
        ObjectNode item = doc("id", "a", "pk", "p");
        item.putNull("ttl");
        assertCosmos(400, "an item with \"ttl\": null", () -> container.createItem(item));
    }

    @Test
    void replaceWithAnotherIdInTheBodyRenamesTheItem() {
        // ReplaceItemAsync "allows updating the id value" (azure-cosmos-dotnet-v3 #1375, #1055): the document named by the
        // path gets the body, including its new id.
        CosmosContainer container = newContainer();
        String rid = container.createItem(doc("id", "a", "pk", "p", "v", 1)).getItem().get("_rid").asText();
        CosmosItemResponse<ObjectNode> replaced = container.replaceItem(doc("id", "b", "pk", "p", "v", 2), "a",
            new PartitionKey("p"), new CosmosItemRequestOptions());
        assertEquals(200, replaced.getStatusCode(), "replace a with a body whose id is b");
        assertEquals("b", replaced.getItem().get("id").asText());
        assertEquals(rid, replaced.getItem().get("_rid").asText(), "same document (_rid)");
        assertCosmos(404, "the old id is gone", () -> container.readItem("a", new PartitionKey("p"), ObjectNode.class));
        assertEquals(2, container.readItem("b", new PartitionKey("p"), ObjectNode.class).getItem().get("v").asInt());
    }

    // ------------------------------------------------------------------ change feed (all versions and deletes)

    @Test
    void allVersionsAndDeletesDeleteEntriesCarryAnEmptyCurrent() {
        CosmosDatabase db = newDatabase();
        CosmosContainerProperties properties = new CosmosContainerProperties(uid("c"), "/pk");
        properties.setChangeFeedPolicy(ChangeFeedPolicy.createAllVersionsAndDeletesPolicy(Duration.ofMinutes(5)));
        CosmosContainer container = newContainer(db, properties, null);
        ChangeFeedTest.Drained now = ChangeFeedTest.drain(container,
            CosmosChangeFeedRequestOptions.createForProcessingFromNow(FeedRange.forFullRange()).allVersionsAndDeletes());
        container.createItem(doc("id", "a", "pk", "p"));
        container.deleteItem("a", new PartitionKey("p"), new CosmosItemRequestOptions());
        List<JsonNode> rows = ChangeFeedTest.drain(container,
            CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(now.continuation).allVersionsAndDeletes()).rows;
        assertEquals(2, rows.size(), "create and delete: " + rows);
        JsonNode delete = rows.get(1);
        assertEquals("delete", delete.path("metadata").path("operationType").asText());
        assertTrue(delete.has("current") && delete.get("current").isObject() && delete.get("current").isEmpty(),
            "a delete entry carries \"current\": {} — " + delete);
    }

    @Test
    void allVersionsAndDeletesWorksWithoutARetentionSetting() {
        CosmosContainer container = newContainer();
        ChangeFeedTest.Drained now = ChangeFeedTest.drain(container,
            CosmosChangeFeedRequestOptions.createForProcessingFromNow(FeedRange.forFullRange()).allVersionsAndDeletes());
        container.createItem(doc("id", "a", "pk", "p"));
        container.deleteItem("a", new PartitionKey("p"), new CosmosItemRequestOptions());
        List<JsonNode> rows = ChangeFeedTest.drain(container,
            CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(now.continuation).allVersionsAndDeletes()).rows;
        assertEquals(List.of("create", "delete"), rows.stream().map(r -> r.path("metadata").path("operationType").asText())
            .collect(Collectors.toList()), "all versions and deletes on a container without changeFeedPolicy");
    }

    // ------------------------------------------------------------------ account

    @Test
    void accountAdvertisesTheClientEndpointAsItsOnlyWriteAndReadLocation() {
        DatabaseAccount account = CosmosBridgeInternal.getAsyncDocumentClient(client()).getDatabaseAccount().block();
        List<DatabaseAccountLocation> writable = new ArrayList<>();
        account.getWritableLocations().forEach(writable::add);
        List<DatabaseAccountLocation> readable = new ArrayList<>();
        account.getReadableLocations().forEach(readable::add);
        assertEquals(1, writable.size(), "one writable location");
        assertEquals(1, readable.size(), "one readable location");
        assertEquals(writable.get(0).getName(), readable.get(0).getName(), "the same region reads and writes");
        URI used = URI.create(Env.ENDPOINT);
        for (DatabaseAccountLocation location : List.of(writable.get(0), readable.get(0))) {
            URI advertised = URI.create(location.getEndpoint());
            assertEquals(used.getScheme() + "://" + used.getHost() + ":" + used.getPort(),
                advertised.getScheme() + "://" + advertised.getHost() + ":" + advertised.getPort(),
                "databaseAccountEndpoint is the endpoint the client used");
        }
    }

    // ------------------------------------------------------------------ error texts

    @Test
    void badContinuationTokenAnswers400InvalidContinuationToken() {
        CosmosContainer container = newContainer();
        for (int i = 0; i < 3; i++) container.createItem(doc("id", "i" + i, "pk", "p"));
        CosmosQueryRequestOptions options = new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p"));
        FeedResponse<JsonNode> page = first(container.queryItems("SELECT * FROM c", options, JsonNode.class).iterableByPage(1));
        // The SDK wraps the service's continuation in its own JSON ({"token": ..., "range": ...}); keep the wrapper and
        // corrupt the service's part, so that the bad token reaches the service.
        ObjectNode wrapper = (ObjectNode) json(page.getContinuationToken());
        assertTrue(wrapper.has("token"), "the SDK's composite continuation: " + wrapper);
        wrapper.put("token", "not-a-token");
        CosmosException e = assertCosmos(400, "a query resumed from a corrupted continuation", () -> first(container.queryItems(
            "SELECT * FROM c", options, JsonNode.class).iterableByPage(wrapper.toString(), 1)));
        assertTrue(e.getMessage().contains("Invalid Continuation Token"), "message: " + shortMessage(e));
    }

    @Test
    void moreThanThreeHierarchicalPathsAnswers400() {
        CosmosDatabase db = newDatabase();
        String json = "{\"id\":\"" + uid("h") + "\",\"partitionKey\":{\"paths\":[\"/a\",\"/b\",\"/c\",\"/d\"],"
            + "\"kind\":\"MultiHash\",\"version\":2}}";
        CosmosException e = assertCosmos(400, "four hierarchical partition key paths", () -> newContainerFromJson(db, json, null));
        assertTrue(e.getMessage().toLowerCase().contains("partition key"), "message names the partition key: " + shortMessage(e));
    }

    @Test
    void incompleteHierarchicalKeyOnAPointReadAnswers400With1001() {
        CosmosContainer container = newHierarchicalContainer(newDatabase(), "/t", "/u");
        container.createItem(doc("id", "a", "t", "t1", "u", "u1"));
        assertCosmos(400, 1001, "a point read with only the first level of the key",
            () -> container.readItem("a", new PartitionKeyBuilder().add("t1").build(), ObjectNode.class));
    }

    @Test
    void hierarchicalPathWithoutLeadingSlashAnswers400() {
        CosmosDatabase db = newDatabase();
        String json = "{\"id\":\"" + uid("h") + "\",\"partitionKey\":{\"paths\":[\"/t\",\"u\"],\"kind\":\"MultiHash\",\"version\":2}}";
        CosmosException e = assertCosmos(400, "a hierarchical path without a leading /", () -> newContainerFromJson(db, json, null));
        assertNotNull(e.getMessage());
    }
}
