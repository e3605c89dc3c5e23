package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.ChangeFeedPolicy;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.PartitionKeyBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cosmolite.conformance.support.CosmosTest;
import org.junit.jupiter.api.Test;

/**
 * Change feed pull model (queryChangeFeed): from the beginning, from now, from a point in time, from a continuation;
 * scoped to the container, a feed range, a partition key or a hierarchical prefix; all versions and deletes.
 */
class ChangeFeedTest extends CosmosTest {

    /** Rows of a change feed read to its current end, and the continuation to resume from. */
    static final class Drained {
        final List<JsonNode> rows = new ArrayList<>();
        String continuation;
        int pages;
    }

    static Drained drain(CosmosContainer container, CosmosChangeFeedRequestOptions options) {
        Drained out = new Drained();
        for (FeedResponse<JsonNode> page : container.queryChangeFeed(options, JsonNode.class).iterableByPage()) {
            out.rows.addAll(page.getResults());
            if (page.getContinuationToken() != null) out.continuation = page.getContinuationToken();
            assertTrue(++out.pages < 500, "the change feed never ended");
        }
        return out;
    }

    static List<Integer> sortedNs(List<JsonNode> rows) {
        List<Integer> ns = ints(rows, "n");
        ns.sort(Integer::compare);
        return ns;
    }

    static void seed(CosmosContainer container, int count) {
        for (int i = 0; i < count; i++) container.createItem(doc("id", "d" + i, "pk", "p" + (i % 5), "n", i));
    }

    @Test
    void fromTheBeginningEachItemOnceInItsLatestVersion() {
        CosmosContainer container = newContainer();
        seed(container, 12);
        container.upsertItem(doc("id", "d3", "pk", "p3", "n", 103));
        Drained drained = drain(container,
            CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange()).setMaxItemCount(4));
        assertEquals(List.of(0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 103), sortedNs(drained.rows), "each item once, latest version");
        for (JsonNode row : drained.rows) {
            assertTrue(row.path("_lsn").isNumber(), "_lsn on change feed items: " + row);
            assertTrue(row.has("_rid") && row.has("_etag") && row.has("_ts"), "system properties");
        }
        assertTrue(drained.pages >= 3, "12 changes in pages of 4 take at least 3 pages, got " + drained.pages);
        assertNotNull(drained.continuation, "a continuation to resume from");
    }

    @Test
    void continuationReturnsOnlyNewChangesAndNoDeletes() {
        CosmosContainer container = newContainer();
        seed(container, 10);
        Drained first = drain(container, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange()));
        assertEquals(10, first.rows.size(), "first round");
        container.replaceItem(doc("id", "d2", "pk", "p2", "n", 202), "d2", new PartitionKey("p2"), new CosmosItemRequestOptions());
        container.createItem(doc("id", "new", "pk", "p9", "n", 99));
        container.deleteItem("d4", new PartitionKey("p4"), new CosmosItemRequestOptions());
        Drained next = drain(container, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(first.continuation));
        assertEquals(List.of(99, 202), sortedNs(next.rows), "the replace and the create, not the delete");
        Drained again = drain(container, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(next.continuation));
        assertEquals(List.of(), again.rows, "nothing new");
    }

    @Test
    void fromNowAndFromAPointInTime() {
        CosmosContainer container = newContainer();
        seed(container, 5);
        Drained now = drain(container, CosmosChangeFeedRequestOptions.createForProcessingFromNow(FeedRange.forFullRange()));
        assertEquals(List.of(), now.rows, "nothing since now");
        assertNotNull(now.continuation, "from now still gives a continuation");
        sleep(1100); // _ts has one-second resolution
        Instant since = Instant.now();
        sleep(1100);
        container.createItem(doc("id", "late", "pk", "p1", "n", 500));
        Drained afterNow = drain(container, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(now.continuation));
        assertEquals(List.of(500), sortedNs(afterNow.rows), "what came after now");
        Drained afterTime = drain(container,
            CosmosChangeFeedRequestOptions.createForProcessingFromPointInTime(since, FeedRange.forFullRange()));
        assertEquals(List.of(500), sortedNs(afterTime.rows), "what came after the point in time");
    }

    @Test
    void scopedToAPartitionKey() {
        CosmosContainer container = newPartitionedContainer();
        seed(container, 15);
        Drained byKey = drain(container, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
            FeedRange.forLogicalPartition(new PartitionKey("p1"))));
        assertEquals(List.of(1, 6, 11), sortedNs(byKey.rows), "partition key p1");
        container.createItem(doc("id", "x", "pk", "p1", "n", 100));
        container.createItem(doc("id", "y", "pk", "p2", "n", 200));
        Drained next = drain(container, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(byKey.continuation));
        assertEquals(List.of(100), sortedNs(next.rows), "the continuation stays on p1");
    }

    @Test
    void theFeedRangesTogetherHoldEveryChangeOnce() {
        CosmosContainer container = newPartitionedContainer();
        seed(container, 20);
        List<FeedRange> ranges = container.getFeedRanges();
        assertEquals(4, ranges.size());
        List<JsonNode> all = new ArrayList<>();
        int nonEmpty = 0;
        for (FeedRange range : ranges) {
            Drained d = drain(container, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(range));
            all.addAll(d.rows);
            if (!d.rows.isEmpty()) nonEmpty++;
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) expected.add(i);
        assertEquals(expected, sortedNs(all), "every change once over the 4 feed ranges");
        assertTrue(nonEmpty >= 2, "five partition keys spread over more than one range");
        Drained whole = drain(container, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange()));
        assertEquals(expected, sortedNs(whole.rows), "the whole container");
    }

    @Test
    void scopedToAHierarchicalPrefix() {
        CosmosDatabase db = newDatabase();
        CosmosContainer container = newHierarchicalContainer(db, "/t", "/u");
        for (int i = 0; i < 6; i++) container.createItem(doc("id", "h" + i, "t", "t" + (i % 2), "u", "u" + i, "n", i));
        Drained prefix = drain(container, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
            FeedRange.forLogicalPartition(new PartitionKeyBuilder().add("t1").build())));
        assertEquals(List.of(1, 3, 5), sortedNs(prefix.rows), "prefix t1");
        Drained full = drain(container, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
            FeedRange.forLogicalPartition(new PartitionKeyBuilder().add("t0").add("u2").build())));
        assertEquals(List.of(2), sortedNs(full.rows), "full key t0/u2");
    }

    @Test
    void allVersionsAndDeletesRecordsEveryOperation() {
        CosmosDatabase db = newDatabase();
        CosmosContainerProperties properties = new CosmosContainerProperties(uid("c"), "/pk");
        properties.setChangeFeedPolicy(ChangeFeedPolicy.createAllVersionsAndDeletesPolicy(Duration.ofMinutes(10)));
        CosmosContainer container = newContainer(db, properties, null);
        Drained now = drain(container,
            CosmosChangeFeedRequestOptions.createForProcessingFromNow(FeedRange.forFullRange()).allVersionsAndDeletes());
        assertEquals(0, now.rows.size());
        container.createItem(doc("id", "a", "pk", "p", "n", 1));
        container.replaceItem(doc("id", "a", "pk", "p", "n", 2), "a", new PartitionKey("p"), new CosmosItemRequestOptions());
        container.deleteItem("a", new PartitionKey("p"), new CosmosItemRequestOptions());
        Drained changes = drain(container,
            CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(now.continuation).allVersionsAndDeletes());
        assertEquals(3, changes.rows.size(), "create, replace and delete: " + changes.rows);
        List<String> ops = new ArrayList<>();
        long previousLsn = -1;
        for (JsonNode row : changes.rows) {
            JsonNode metadata = row.path("metadata");
            ops.add(metadata.path("operationType").asText());
            long lsn = metadata.path("lsn").asLong(-1);
            assertTrue(lsn > previousLsn, "lsn grows: " + row);
            previousLsn = lsn;
            assertTrue(metadata.path("crts").isNumber(), "crts: " + row);
        }
        assertEquals(List.of("create", "replace", "delete"), ops, "operation types in order");
        assertEquals(1, changes.rows.get(0).path("current").path("n").asInt(), "create carries the new version");
        assertEquals(2, changes.rows.get(1).path("current").path("n").asInt(), "replace carries the new version");
        JsonNode delete = changes.rows.get(2).path("metadata");
        assertEquals("a", delete.path("id").asText(), "delete names the id: " + changes.rows.get(2));
        assertTrue(changes.rows.get(1).path("metadata").path("previousImageLSN").asLong(0) > 0,
            "replace points at the previous image: " + changes.rows.get(1));
    }
}
