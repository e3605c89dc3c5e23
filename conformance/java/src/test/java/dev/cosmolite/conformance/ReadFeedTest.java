package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosItemIdentity;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cosmolite.conformance.support.CosmosTest;
import org.junit.jupiter.api.Test;

/** Read feed: readAllItems of a logical partition (paged, with continuations) and readMany across partitions. */
class ReadFeedTest extends CosmosTest {

    @Test
    void readAllItemsOfAPartitionKey() {
        CosmosContainer container = newPartitionedContainer();
        for (int i = 0; i < 15; i++) container.createItem(doc("id", "i" + i, "pk", "p" + (i % 3), "n", i));
        List<JsonNode> rows = container.readAllItems(new PartitionKey("p1"), JsonNode.class).stream().collect(Collectors.toList());
        List<Integer> ns = ints(rows, "n");
        ns.sort(Integer::compare);
        assertEquals(List.of(1, 4, 7, 10, 13), ns, "readAllItems of p1");
        for (JsonNode row : rows) assertTrue(row.has("_rid") && row.has("_etag"), "system properties on read feed rows");
    }

    @Test
    void readAllItemsPagesWithContinuations() {
        CosmosContainer container = newContainer();
        for (int i = 0; i < 23; i++) container.createItem(doc("id", String.format("i%02d", i), "pk", "p", "n", i));
        List<Integer> seen = new ArrayList<>();
        String continuation = null;
        int pages = 0;
        do {
            FeedResponse<JsonNode> page = first(container.readAllItems(new PartitionKey("p"), new CosmosQueryRequestOptions(),
                JsonNode.class).iterableByPage(continuation, 5));
            assertTrue(page.getResults().size() <= 5, "page of at most 5, got " + page.getResults().size());
            assertCharge(page.getRequestCharge(), "read feed page");
            seen.addAll(ints(page.getResults(), "n"));
            continuation = page.getContinuationToken();
            assertTrue(++pages < 50, "too many pages");
        } while (continuation != null);
        seen.sort(Integer::compare);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 23; i++) expected.add(i);
        assertEquals(expected, seen, "every item once across the pages");
        assertTrue(pages >= 5, "23 items in pages of 5 need at least 5 pages, got " + pages);
    }

    @Test
    void readAllItemsOfAnEmptyPartition() {
        CosmosContainer container = newContainer();
        container.createItem(doc("id", "a", "pk", "p"));
        assertEquals(0, container.readAllItems(new PartitionKey("nothing"), JsonNode.class).stream().count());
    }

    @Test
    void readManyAcrossPartitions() {
        CosmosContainer container = newPartitionedContainer();
        for (int i = 0; i < 12; i++) container.createItem(doc("id", "i" + i, "pk", "p" + i, "n", i));
        List<CosmosItemIdentity> ids = new ArrayList<>();
        for (int i : new int[] {0, 3, 7, 11}) ids.add(new CosmosItemIdentity(new PartitionKey("p" + i), "i" + i));
        ids.add(new CosmosItemIdentity(new PartitionKey("p1"), "missing"));
        ids.add(new CosmosItemIdentity(new PartitionKey("p2"), "i3")); // right id, wrong partition
        FeedResponse<JsonNode> response = container.readMany(ids, JsonNode.class);
        List<Integer> ns = ints(response.getResults(), "n");
        ns.sort(Integer::compare);
        assertEquals(List.of(0, 3, 7, 11), ns, "readMany returns the existing items only");
        assertCharge(response.getRequestCharge(), "readMany");
    }
}
