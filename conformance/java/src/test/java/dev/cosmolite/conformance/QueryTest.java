package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CompositePath;
import com.azure.cosmos.models.CompositePathSortOrder;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.IndexingPolicy;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cosmolite.conformance.support.CosmosTest;
import dev.cosmolite.conformance.support.Env;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * SQL queries on a container with four physical partitions (40,000 RU/s): single-partition queries with parameters,
 * and cross-partition queries through the SDK's client pipeline (query plan from the gateway, then per-range
 * requests merged by the SDK): filters, ORDER BY, TOP, aggregates, DISTINCT, GROUP BY, OFFSET LIMIT, paging with
 * continuation tokens, and query errors.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueryTest extends CosmosTest {
    static final int N = 30;
    static final String[] CATS = {"a", "b", "c"};
    private String databaseId;
    private CosmosContainer container;

    @BeforeAll
    void seed() {
        databaseId = uid("java-query");
        client().createDatabase(databaseId);
        CosmosDatabase db = client().getDatabase(databaseId);
        db.createContainer(new CosmosContainerProperties("items", "/pk"), ThroughputProperties.createManualThroughput(40_000));
        container = db.getContainer("items");
        for (int n = 0; n < N; n++) {
            container.createItem(doc("id", "i" + n, "pk", "p" + (n % 10), "n", n, "cat", CATS[n % 3],
                "price", n * 1.5, "tags", n % 2 == 0 ? List.of("even") : List.of("odd", "x"),
                "name", "Item " + (char) ('A' + (n % 26))));
        }
    }

    @AfterAll
    void drop() {
        try { client().getDatabase(databaseId).delete(); } catch (CosmosException ignored) { }
    }

    private List<JsonNode> query(String sql, CosmosQueryRequestOptions options) {
        return container.queryItems(sql, options, JsonNode.class).stream().collect(Collectors.toList());
    }

    private List<JsonNode> query(String sql) {
        return query(sql, new CosmosQueryRequestOptions());
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> out = new ArrayList<>();
        for (int i = from; i < to; i++) out.add(i);
        return out;
    }

    private static List<Integer> sorted(List<Integer> values) {
        List<Integer> copy = new ArrayList<>(values);
        copy.sort(Integer::compare);
        return copy;
    }

    @Test
    void singlePartitionQueryWithParameters() {
        SqlQuerySpec spec = new SqlQuerySpec("SELECT * FROM c WHERE c.pk = @pk AND c.n >= @min",
            List.of(new SqlParameter("@pk", "p3"), new SqlParameter("@min", 10)));
        CosmosQueryRequestOptions options = new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p3"));
        List<JsonNode> rows = container.queryItems(spec, options, JsonNode.class).stream().collect(Collectors.toList());
        assertEquals(List.of(13, 23), sorted(ints(rows, "n")), "items of p3 with n >= 10");
        for (JsonNode row : rows) {
            assertTrue(row.has("_rid") && row.has("_etag") && row.has("_ts"), "SELECT * returns system properties");
        }
    }

    @Test
    void singlePartitionQueryReturnsOnlyThatPartition() {
        CosmosQueryRequestOptions options = new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p5"));
        assertEquals(List.of(5, 15, 25), sorted(ints(query("SELECT * FROM c", options), "n")));
        assertEquals(List.of(), query("SELECT * FROM c WHERE c.n = 6", options), "a filter outside the partition");
    }

    @Test
    void parametersOfEveryType() {
        SqlQuerySpec spec = new SqlQuerySpec(
            "SELECT VALUE c.n FROM c WHERE c.cat = @cat AND c.price > @price AND ARRAY_CONTAINS(@ids, c.id) AND @flag = true AND IS_NULL(@nothing)",
            List.of(new SqlParameter("@cat", "b"), new SqlParameter("@price", 10.0),
                new SqlParameter("@ids", List.of("i7", "i10", "i13", "i2")), new SqlParameter("@flag", true),
                new SqlParameter("@nothing", null)));
        List<Integer> ns = ints(container.queryItems(spec, new CosmosQueryRequestOptions(), JsonNode.class).stream()
            .collect(Collectors.toList()), null);
        assertEquals(List.of(7, 10, 13), sorted(ns), "string, number, array, boolean and null parameters");
    }

    @Test
    void crossPartitionFilterAndProjection() {
        List<JsonNode> rows = query("SELECT c.id, c.n AS number FROM c WHERE c.cat = 'a' AND c.n < 15");
        assertEquals(List.of(0, 3, 6, 9, 12), sorted(ints(rows, "number")), "filter across partitions");
        for (JsonNode row : rows) assertEquals(2, row.size(), "projection has exactly id and number: " + row);
    }

    @Test
    void crossPartitionOrderBy() {
        assertEquals(range(0, N), ints(query("SELECT * FROM c ORDER BY c.n"), "n"), "ORDER BY ascending");
        List<Integer> desc = range(0, N);
        desc.sort(Comparator.reverseOrder());
        assertEquals(desc, ints(query("SELECT c.n FROM c ORDER BY c.n DESC"), "n"), "ORDER BY descending");
        List<JsonNode> byName = query("SELECT VALUE c.name FROM c WHERE c.n < 5 ORDER BY c.name DESC");
        assertEquals(List.of("Item E", "Item D", "Item C", "Item B", "Item A"),
            byName.stream().map(JsonNode::asText).collect(Collectors.toList()), "ORDER BY a string");
    }

    @Test
    void crossPartitionTop() {
        assertEquals(List.of(0, 1, 2, 3, 4), ints(query("SELECT TOP 5 * FROM c ORDER BY c.n"), "n"), "TOP 5 ORDER BY");
        assertEquals(7, query("SELECT TOP 7 c.id FROM c").size(), "TOP 7 without ORDER BY");
        List<JsonNode> top = query("SELECT TOP 3 VALUE c.n FROM c WHERE c.cat = 'c' ORDER BY c.n DESC");
        assertEquals(List.of(29, 26, 23), ints(top, null), "TOP with filter and ORDER BY DESC");
    }

    @Test
    void crossPartitionAggregates() {
        assertEquals(N, query("SELECT VALUE COUNT(1) FROM c").get(0).asInt(), "COUNT(1)");
        assertEquals(N * (N - 1) / 2, query("SELECT VALUE SUM(c.n) FROM c").get(0).asInt(), "SUM");
        assertEquals(0, query("SELECT VALUE MIN(c.n) FROM c").get(0).asInt(), "MIN");
        assertEquals(N - 1, query("SELECT VALUE MAX(c.n) FROM c").get(0).asInt(), "MAX");
        assertEquals((N - 1) / 2.0, query("SELECT VALUE AVG(c.n) FROM c").get(0).asDouble(), 1e-9, "AVG");
        assertEquals(10, query("SELECT VALUE COUNT(1) FROM c WHERE c.cat = 'b'").get(0).asInt(), "COUNT with a filter");
        assertEquals(0, query("SELECT VALUE COUNT(1) FROM c WHERE c.n > 1000").get(0).asInt(), "COUNT of nothing is 0");
    }

    @Test
    void crossPartitionDistinct() {
        List<String> cats = query("SELECT DISTINCT VALUE c.cat FROM c").stream().map(JsonNode::asText).sorted()
            .collect(Collectors.toList());
        assertEquals(List.of("a", "b", "c"), cats, "DISTINCT VALUE");
        List<JsonNode> ordered = query("SELECT DISTINCT VALUE c.cat FROM c ORDER BY c.cat DESC");
        assertEquals(List.of("c", "b", "a"), ordered.stream().map(JsonNode::asText).collect(Collectors.toList()),
            "DISTINCT with ORDER BY");
        assertEquals(2, query("SELECT DISTINCT c.tags FROM c").size(), "DISTINCT over arrays");
    }

    @Test
    void crossPartitionGroupBy() {
        List<JsonNode> rows = query("SELECT c.cat, COUNT(1) AS cnt, SUM(c.n) AS total, MAX(c.n) AS biggest FROM c GROUP BY c.cat");
        Map<String, int[]> byCat = new TreeMap<>();
        for (JsonNode row : rows) {
            byCat.put(row.get("cat").asText(), new int[] {row.get("cnt").asInt(), row.get("total").asInt(), row.get("biggest").asInt()});
        }
        assertEquals(List.of("a", "b", "c"), new ArrayList<>(byCat.keySet()), "one row per group");
        assertArrayEquals(new int[] {10, 135, 27}, byCat.get("a"), "group a");
        assertArrayEquals(new int[] {10, 145, 28}, byCat.get("b"), "group b");
        assertArrayEquals(new int[] {10, 155, 29}, byCat.get("c"), "group c");
        List<JsonNode> values = query("SELECT VALUE COUNT(1) FROM c GROUP BY c.pk");
        assertEquals(10, values.size(), "GROUP BY VALUE: one count per partition key");
        for (JsonNode v : values) assertEquals(3, v.asInt());
    }

    @Test
    void crossPartitionOffsetLimit() {
        assertEquals(List.of(10, 11, 12, 13, 14), ints(query("SELECT * FROM c ORDER BY c.n OFFSET 10 LIMIT 5"), "n"),
            "OFFSET 10 LIMIT 5");
        assertEquals(List.of(28, 29), ints(query("SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 28 LIMIT 10"), null),
            "OFFSET near the end");
        assertEquals(4, query("SELECT * FROM c OFFSET 3 LIMIT 4").size(), "OFFSET LIMIT without ORDER BY");
    }

    @Test
    void orderByOnTwoPathsNeedsACompositeIndex() {
        CosmosException e = assertCosmos(400, "ORDER BY on two paths without a composite index",
            () -> query("SELECT * FROM c ORDER BY c.cat, c.n"));
        assertTrue(e.getMessage().contains("composite index"), "message names the composite index: " + shortMessage(e));

        CosmosDatabase db = newDatabase();
        CosmosContainerProperties properties = new CosmosContainerProperties(uid("c"), "/pk");
        IndexingPolicy policy = new IndexingPolicy();
        policy.setCompositeIndexes(List.of(List.of(new CompositePath().setPath("/cat").setOrder(CompositePathSortOrder.ASCENDING),
            new CompositePath().setPath("/n").setOrder(CompositePathSortOrder.DESCENDING))));
        properties.setIndexingPolicy(policy);
        CosmosContainer indexed = newContainer(db, properties, ThroughputProperties.createManualThroughput(40_000));
        for (int n = 0; n < 9; n++) indexed.createItem(doc("id", "i" + n, "pk", "p" + n, "n", n, "cat", CATS[n % 3]));
        List<JsonNode> rows = indexed.queryItems("SELECT c.cat, c.n FROM c ORDER BY c.cat ASC, c.n DESC",
            new CosmosQueryRequestOptions(), JsonNode.class).stream().collect(Collectors.toList());
        assertEquals(List.of(6, 3, 0, 7, 4, 1, 8, 5, 2), ints(rows, "n"), "ORDER BY cat ASC, n DESC with the composite index");
    }

    @Test
    void pagingWithContinuationTokens() {
        String sql = "SELECT * FROM c WHERE c.n >= 3";
        List<Integer> seen = new ArrayList<>();
        String continuation = null;
        int pages = 0;
        do {
            FeedResponse<JsonNode> page = first(container.queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class)
                .iterableByPage(continuation, 4));
            assertNotNull(page, "a page");
            assertTrue(page.getResults().size() <= 4, "page size honours the preferred 4: " + page.getResults().size());
            assertCharge(page.getRequestCharge(), "query page");
            seen.addAll(ints(page.getResults(), "n"));
            continuation = page.getContinuationToken();
            pages++;
            assertTrue(pages < 100, "too many pages");
        } while (continuation != null);
        assertEquals(range(3, N), sorted(seen), "every item once over the pages, resumed from each continuation");
        assertTrue(pages >= 7, "27 items in pages of at most 4 take at least 7 pages, got " + pages);
    }

    @Test
    void orderByPagingResumesFromAContinuation() {
        String sql = "SELECT c.n FROM c ORDER BY c.n DESC";
        Iterable<FeedResponse<JsonNode>> pages = container.queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage(5);
        FeedResponse<JsonNode> firstPage = first(pages);
        List<Integer> seen = new ArrayList<>(ints(firstPage.getResults(), "n"));
        assertNotNull(firstPage.getContinuationToken(), "first ORDER BY page has a continuation");
        for (FeedResponse<JsonNode> page : container.queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage(firstPage.getContinuationToken(), 5)) {
            seen.addAll(ints(page.getResults(), "n"));
        }
        List<Integer> desc = range(0, N);
        desc.sort(Comparator.reverseOrder());
        assertEquals(desc, seen, "ORDER BY DESC resumed from the first page's continuation");
    }

    @Test
    void subqueriesJoinsAndFunctions() {
        List<JsonNode> joined = query("SELECT c.n, t AS tag FROM c JOIN t IN c.tags WHERE t = 'x' AND c.n < 6");
        assertEquals(List.of(1, 3, 5), sorted(ints(joined, "n")), "JOIN over an array");
        List<JsonNode> exists = query("SELECT VALUE c.n FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = 'odd') AND c.n < 4");
        assertEquals(List.of(1, 3), sorted(ints(exists, null)), "EXISTS subquery");
        List<JsonNode> fn = query("SELECT VALUE UPPER(c.cat) || '-' || ToString(c.n) FROM c WHERE STARTSWITH(c.id, 'i2') AND LENGTH(c.id) = 2");
        assertEquals(List.of("C-2"), fn.stream().map(JsonNode::asText).collect(Collectors.toList()), "string functions");
        List<JsonNode> like = query("SELECT VALUE c.n FROM c WHERE c.id LIKE 'i1_' ORDER BY c.n");
        assertEquals(range(10, 20), ints(like, null), "LIKE");
    }

    @Test
    void syntaxErrorAnswers400WithTheServiceMessage() {
        CosmosException e = assertCosmos(400, "a query with a syntax error", () -> query("SELEC * FROM c"));
        assertTrue(e.getMessage().contains("Syntax error"), "the message carries the syntax error: " + shortMessage(e));
        CosmosException unknown = assertCosmos(400, "a query calling an unknown function",
            () -> query("SELECT VALUE NO_SUCH_FUNCTION(c.n) FROM c"));
        assertTrue(unknown.getMessage().contains("NO_SUCH_FUNCTION"), "the message names the function: " + shortMessage(unknown));
    }

    @Test
    void queryChargesAreReported() {
        for (FeedResponse<JsonNode> page : container.queryItems("SELECT * FROM c WHERE c.cat = 'a'",
            new CosmosQueryRequestOptions(), JsonNode.class).iterableByPage()) {
            assertCharge(page.getRequestCharge(), "query page");
            assertNotNull(page.getActivityId(), "activity id");
        }
    }

    @Test
    void emptyResultHasNoRowsAndNoContinuation() {
        List<FeedResponse<JsonNode>> pages = list(container.queryItems("SELECT * FROM c WHERE c.n < 0",
            new CosmosQueryRequestOptions(), JsonNode.class).iterableByPage());
        assertEquals(0, pages.stream().mapToInt(p -> p.getResults().size()).sum(), "no rows");
        assertNull(pages.get(pages.size() - 1).getContinuationToken(), "the last page has no continuation");
    }

    @Test
    void endpointIsTheOneConfigured() {
        // sanity: the suite talks to the endpoint it was given (endpoint discovery kept on)
        assertFalse(Env.ENDPOINT.isEmpty());
        FeedResponse<JsonNode> page = first(container.queryItems("SELECT * FROM c", new CosmosQueryRequestOptions(),
            JsonNode.class).iterableByPage(1));
        assertEquals(1, page.getCosmosDiagnostics().getContactedRegionNames().size(), "one region contacted");
    }
}
