package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.stream.Collectors;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.PartitionKeyBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cosmolite.conformance.support.CosmosTest;
import org.junit.jupiter.api.Test;

/** deleteAllItemsByPartitionKey: one logical partition, or every partition below a hierarchical prefix. */
class DeleteByPartitionKeyTest extends CosmosTest {

    private static List<String> ids(CosmosContainer container) {
        return container.queryItems("SELECT VALUE c.id FROM c", new CosmosQueryRequestOptions(), JsonNode.class).stream()
            .map(JsonNode::asText).sorted().collect(Collectors.toList());
    }

    @Test
    void deletesEveryItemOfOneLogicalPartition() {
        CosmosContainer container = newPartitionedContainer();
        for (int i = 0; i < 5; i++) container.createItem(doc("id", "a" + i, "pk", "p1"));
        for (int i = 0; i < 3; i++) container.createItem(doc("id", "b" + i, "pk", "p2"));
        CosmosItemResponse<Object> response = container.deleteAllItemsByPartitionKey(new PartitionKey("p1"),
            new CosmosItemRequestOptions());
        assertEquals(200, response.getStatusCode(), "delete by partition key");
        assertCharge(response.getRequestCharge(), "delete by partition key");
        assertEquals(List.of("b0", "b1", "b2"), ids(container), "only p2 is left");
        assertCosmos(404, "read a deleted item", () -> container.readItem("a0", new PartitionKey("p1"), ObjectNode.class));
        assertEquals(0, container.readAllItems(new PartitionKey("p1"), JsonNode.class).stream().count(), "p1 is empty");
        assertEquals(201, container.createItem(doc("id", "a0", "pk", "p1")).getStatusCode(), "the partition can be reused");
    }

    @Test
    void deleteOfAnEmptyPartitionSucceeds() {
        CosmosContainer container = newContainer();
        container.createItem(doc("id", "x", "pk", "p"));
        assertEquals(200, container.deleteAllItemsByPartitionKey(new PartitionKey("nothing"), new CosmosItemRequestOptions())
            .getStatusCode(), "delete of an empty logical partition");
        assertEquals(List.of("x"), ids(container));
    }

    @Test
    void deletesEveryPartitionBelowAHierarchicalPrefix() {
        CosmosContainer container = newHierarchicalContainer(newDatabase(), "/t", "/u");
        for (int i = 0; i < 6; i++) container.createItem(doc("id", "h" + i, "t", "t" + (i % 2), "u", "u" + i));
        container.deleteAllItemsByPartitionKey(new PartitionKeyBuilder().add("t1").build(), new CosmosItemRequestOptions());
        assertEquals(List.of("h0", "h2", "h4"), ids(container), "everything below t1 deleted");
        container.deleteAllItemsByPartitionKey(new PartitionKeyBuilder().add("t0").add("u2").build(), new CosmosItemRequestOptions());
        assertEquals(List.of("h0", "h4"), ids(container), "the full key t0/u2 deleted");
    }
}
