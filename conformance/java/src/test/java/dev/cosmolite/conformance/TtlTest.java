package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.stream.Collectors;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cosmolite.conformance.support.CosmosTest;
import org.junit.jupiter.api.Test;

/** Time to live: the container's defaultTtl, per-item ttl, -1, TTL off, and TTL turned on later. */
class TtlTest extends CosmosTest {

    private CosmosContainer containerWithTtl(CosmosDatabase db, Integer defaultTtl) {
        CosmosContainerProperties properties = new CosmosContainerProperties(uid("c"), "/pk");
        properties.setDefaultTimeToLiveInSeconds(defaultTtl);
        return newContainer(db, properties, null);
    }

    private static boolean exists(CosmosContainer container, String id, String pk) {
        try {
            container.readItem(id, new PartitionKey(pk), ObjectNode.class);
            return true;
        } catch (CosmosException e) {
            assertEquals(404, e.getStatusCode(), "read of " + id + ": " + shortMessage(e));
            return false;
        }
    }

    private static List<String> ids(CosmosContainer container) {
        return container.queryItems("SELECT VALUE c.id FROM c", new CosmosQueryRequestOptions(), JsonNode.class).stream()
            .map(JsonNode::asText).sorted().collect(Collectors.toList());
    }

    /** Waits until the item is gone (the service expires documents within about a second of _ts + ttl). */
    private static boolean goneWithin(CosmosContainer container, String id, String pk, long ms) {
        return !retryUntil(() -> exists(container, id, pk), present -> !present, ms);
    }

    @Test
    void defaultTtlAndPerItemTtl() {
        CosmosDatabase db = newDatabase();
        CosmosContainer withDefault = containerWithTtl(db, 2);
        CosmosContainer onWithoutDefault = containerWithTtl(db, -1);
        CosmosContainer off = containerWithTtl(db, null);

        withDefault.createItem(doc("id", "expires", "pk", "p"));
        withDefault.createItem(doc("id", "forever", "pk", "p", "ttl", -1));
        withDefault.createItem(doc("id", "longer", "pk", "p", "ttl", 3600));
        onWithoutDefault.createItem(doc("id", "short", "pk", "p", "ttl", 1));
        onWithoutDefault.createItem(doc("id", "kept", "pk", "p"));
        off.createItem(doc("id", "ignored", "pk", "p", "ttl", 1));
        assertTrue(exists(withDefault, "expires", "p"), "readable before it expires");

        assertTrue(goneWithin(withDefault, "expires", "p", 6000), "defaultTtl 2 s: gone after expiry");
        assertTrue(goneWithin(onWithoutDefault, "short", "p", 4000), "item ttl 1 s on a container with defaultTtl -1");
        assertEquals(List.of("forever", "longer"), ids(withDefault), "ttl -1 and a longer ttl survive; queries skip the expired");
        assertEquals(List.of("kept"), ids(onWithoutDefault), "defaultTtl -1: items without ttl never expire");
        assertTrue(exists(off, "ignored", "p"), "an item ttl is ignored while the container has TTL off");
    }

    @Test
    void turningTtlOnLaterAppliesToExistingItems() {
        CosmosDatabase db = newDatabase();
        CosmosContainer container = containerWithTtl(db, null);
        container.createItem(doc("id", "old", "pk", "p"));
        container.createItem(doc("id", "pinned", "pk", "p", "ttl", -1));
        sleep(1200);
        CosmosContainerProperties properties = container.read().getProperties();
        properties.setDefaultTimeToLiveInSeconds(1);
        container.replace(properties);
        assertTrue(goneWithin(container, "old", "p", 5000), "an existing item older than the new defaultTtl expires");
        assertTrue(exists(container, "pinned", "p"), "ttl -1 keeps an item");
    }

    @Test
    void expiredItemsLeaveQueriesAndCountsAtOnce() {
        CosmosDatabase db = newDatabase();
        CosmosContainer container = containerWithTtl(db, -1);
        for (int i = 0; i < 5; i++) container.createItem(doc("id", "t" + i, "pk", "p", "ttl", 1, "n", i));
        container.createItem(doc("id", "stay", "pk", "p", "n", 99));
        assertTrue(goneWithin(container, "t4", "p", 5000), "ttl 1 s items expire");
        assertEquals(1, container.queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(), JsonNode.class)
            .stream().findFirst().get().asInt(), "COUNT no longer sees expired items");
    }

    @Test
    void invalidTtlValuesAnswer400() {
        CosmosDatabase db = newDatabase();
        CosmosContainer container = containerWithTtl(db, -1);
        assertCosmos(400, "item ttl 0", () -> container.createItem(doc("id", "zero", "pk", "p", "ttl", 0)));
        assertCosmos(400, "item ttl as a string", () -> container.createItem(doc("id", "str", "pk", "p", "ttl", "10")));
        CosmosContainerProperties properties = new CosmosContainerProperties(uid("c"), "/pk");
        properties.setDefaultTimeToLiveInSeconds(0);
        assertCosmos(400, "container defaultTtl 0", () -> db.createContainer(properties));
    }
}
