package dev.cosmolite.conformance;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosContainerRequestOptions;
import com.azure.cosmos.models.CosmosContainerResponse;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.ExcludedPath;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.IncludedPath;
import com.azure.cosmos.models.IndexingMode;
import com.azure.cosmos.models.IndexingPolicy;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.PartitionKeyBuilder;
import com.azure.cosmos.models.PartitionKeyDefinition;
import com.azure.cosmos.models.PartitionKeyDefinitionVersion;
import com.azure.cosmos.models.PartitionKind;
import com.azure.cosmos.models.ThroughputProperties;
import com.azure.cosmos.models.UniqueKey;
import com.azure.cosmos.models.UniqueKeyPolicy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cosmolite.conformance.support.CosmosTest;
import org.junit.jupiter.api.Test;

/** Containers with one and with four physical partitions: create, read, replace, list, delete, feed ranges, errors. */
class ContainerTest extends CosmosTest {

    @Test
    void createAnswers201WithPartitionKeyAndDefaultIndexingPolicy() {
        CosmosDatabase database = newDatabase();
        String id = uid("c");
        CosmosContainerResponse response = database.createContainer(new CosmosContainerProperties(id, "/pk"));
        assertEquals(201, response.getStatusCode(), "create container");
        assertCharge(response.getRequestCharge(), "create container");
        CosmosContainerProperties properties = response.getProperties();
        assertEquals(id, properties.getId());
        assertEquals(List.of("/pk"), properties.getPartitionKeyDefinition().getPaths(), "partition key paths");
        assertEquals(PartitionKind.HASH, properties.getPartitionKeyDefinition().getKind(), "partition key kind");
        assertNotNull(properties.getResourceId(), "_rid");
        assertNotNull(properties.getETag(), "_etag");
        IndexingPolicy policy = properties.getIndexingPolicy();
        assertNotNull(policy, "default indexing policy");
        assertEquals(IndexingMode.CONSISTENT, policy.getIndexingMode(), "default indexing mode");
        assertTrue(policy.isAutomatic(), "automatic indexing");
        assertTrue(policy.getIncludedPaths().stream().anyMatch(p -> p.getPath().equals("/*")), "default included path /*");
        assertNull(properties.getDefaultTimeToLiveInSeconds(), "no default TTL unless asked");
    }

    @Test
    void readReturnsTheStoredDefinition() {
        CosmosDatabase database = newDatabase();
        CosmosContainerProperties create = new CosmosContainerProperties(uid("c"), "/tenant");
        create.setDefaultTimeToLiveInSeconds(3600);
        CosmosContainer container = newContainer(database, create, null);
        CosmosContainerResponse read = container.read();
        assertEquals(200, read.getStatusCode(), "read container");
        CosmosContainerProperties properties = read.getProperties();
        assertEquals(List.of("/tenant"), properties.getPartitionKeyDefinition().getPaths());
        assertEquals(3600, properties.getDefaultTimeToLiveInSeconds(), "defaultTtl kept");
        assertNotNull(properties.getResourceId(), "_rid");
        assertEquals(create.getId(), properties.getId());
        assertCharge(read.getRequestCharge(), "read container");
    }

    @Test
    void partitionKeyVersion2AsTheJavaSdkSendsIt() {
        // PartitionKeyDefinition.setVersion(V2) serialises "version": "V2" (the enum name): the service accepts it, as
        // Microsoft's Java samples for hash V2 and hierarchical keys use exactly this call.
        CosmosDatabase database = newDatabase();
        PartitionKeyDefinition pk = new PartitionKeyDefinition();
        pk.setPaths(List.of("/pk"));
        pk.setKind(PartitionKind.HASH);
        pk.setVersion(PartitionKeyDefinitionVersion.V2);
        CosmosContainer container = newContainer(database, new CosmosContainerProperties(uid("c"), pk),
            ThroughputProperties.createManualThroughput(40_000));
        assertEquals(PartitionKeyDefinitionVersion.V2, container.read().getProperties().getPartitionKeyDefinition().getVersion(),
            "version 2 kept");
        for (int i = 0; i < 20; i++) container.createItem(doc("id", "i" + i, "pk", "p" + i, "n", i));
        for (int i = 0; i < 20; i++) {
            assertEquals(i, container.readItem("i" + i, new PartitionKey("p" + i), ObjectNode.class).getItem().get("n").asInt(),
                "point read routed by the V2 hash");
        }
        assertEquals(20, container.queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(), JsonNode.class)
            .stream().findFirst().get().asInt(), "count across the four ranges");
    }

    @Test
    void duplicateAnswers409AndMissingAnswers404() {
        CosmosDatabase database = newDatabase();
        String id = uid("c");
        database.createContainer(id, "/pk");
        assertCosmos(409, "create an existing container", () -> database.createContainer(id, "/pk"));
        CosmosContainer missing = database.getContainer(uid("missing"));
        assertCosmos(404, "read a missing container", missing::read);
        assertCosmos(404, "delete a missing container", missing::delete);
        CosmosDatabase missingDb = client().getDatabase(uid("java-missing"));
        assertCosmos(404, "create a container in a missing database", () -> missingDb.createContainer("c", "/pk"));
    }

    @Test
    void createIfNotExistsIsIdempotent() {
        CosmosDatabase database = newDatabase();
        String id = uid("c");
        assertEquals(201, database.createContainerIfNotExists(id, "/pk").getStatusCode());
        assertEquals(200, database.createContainerIfNotExists(id, "/pk").getStatusCode());
    }

    @Test
    void replaceIndexingPolicyAndDefaultTtl() {
        CosmosContainer container = newContainer();
        CosmosContainerProperties properties = container.read().getProperties();
        IndexingPolicy policy = new IndexingPolicy();
        policy.setIndexingMode(IndexingMode.CONSISTENT);
        policy.setIncludedPaths(List.of(new IncludedPath("/name/?"), new IncludedPath("/n/?")));
        policy.setExcludedPaths(List.of(new ExcludedPath("/*")));
        properties.setIndexingPolicy(policy);
        properties.setDefaultTimeToLiveInSeconds(120);
        CosmosContainerResponse replaced = container.replace(properties);
        assertEquals(200, replaced.getStatusCode(), "replace container");
        CosmosContainerProperties read = container.read().getProperties();
        assertEquals(120, read.getDefaultTimeToLiveInSeconds(), "defaultTtl after replace");
        Set<String> included = read.getIndexingPolicy().getIncludedPaths().stream().map(IncludedPath::getPath)
            .collect(Collectors.toSet());
        assertTrue(included.containsAll(Set.of("/name/?", "/n/?")), "included paths after replace: " + included);
        assertTrue(read.getIndexingPolicy().getExcludedPaths().stream().anyMatch(p -> p.getPath().equals("/*")),
            "excluded /* after replace");
        // turning TTL off again: defaultTtl removed
        read.setDefaultTimeToLiveInSeconds(null);
        container.replace(read);
        assertNull(container.read().getProperties().getDefaultTimeToLiveInSeconds(), "defaultTtl removed");
    }

    @Test
    void partitionKeyCannotBeChangedByReplace() {
        CosmosContainer container = newContainer();
        CosmosContainerProperties properties = container.read().getProperties();
        PartitionKeyDefinition other = new PartitionKeyDefinition();
        other.setPaths(List.of("/other"));
        properties.setPartitionKeyDefinition(other);
        assertCosmos(400, "replace with another partition key", () -> container.replace(properties));
    }

    @Test
    void listAndQueryContainers() {
        CosmosDatabase database = newDatabase();
        String a = uid("ca"), b = uid("cb");
        database.createContainer(a, "/pk");
        database.createContainer(b, "/pk");
        Set<String> ids = database.readAllContainers().stream().map(CosmosContainerProperties::getId).collect(Collectors.toSet());
        assertEquals(Set.of(a, b), ids, "readAllContainers");
        List<CosmosContainerProperties> found = database.queryContainers("SELECT * FROM c WHERE c.id = '" + b + "'",
            new CosmosQueryRequestOptions()).stream().collect(Collectors.toList());
        assertEquals(1, found.size(), "query containers by id");
        assertEquals(List.of("/pk"), found.get(0).getPartitionKeyDefinition().getPaths());
    }

    @Test
    void deleteAnswers204AndRemovesItsItems() {
        CosmosDatabase database = newDatabase();
        String id = uid("c");
        database.createContainer(id, "/pk");
        CosmosContainer container = database.getContainer(id);
        container.createItem(doc("id", "a", "pk", "p"));
        assertEquals(204, container.delete().getStatusCode(), "delete container");
        assertCosmos(404, "read deleted container", container::read);
        database.createContainer(id, "/pk");
        assertCosmos(404, "items do not survive a delete and re-create",
            () -> database.getContainer(id).readItem("a", new PartitionKey("p"), ObjectNode.class));
    }

    @Test
    void singlePartitionContainerHasOneFeedRange() {
        CosmosContainer container = newContainer();
        List<FeedRange> ranges = container.getFeedRanges();
        assertEquals(1, ranges.size(), "a 400 RU/s container has one physical partition");
    }

    @Test
    void fourPartitionContainerSpreadsItemsOverItsFeedRanges() {
        CosmosContainer container = newPartitionedContainer();
        List<FeedRange> ranges = container.getFeedRanges();
        assertEquals(4, new HashSet<>(ranges.stream().map(FeedRange::toString).collect(Collectors.toList())).size(),
            "four distinct feed ranges");
        for (int i = 0; i < 40; i++) container.createItem(doc("id", "i" + i, "pk", "p" + i, "n", i));
        Map<Integer, Integer> perRange = new TreeMap<>();
        List<Integer> all = new ArrayList<>();
        for (int r = 0; r < ranges.size(); r++) {
            CosmosQueryRequestOptions options = new CosmosQueryRequestOptions().setFeedRange(ranges.get(r));
            List<JsonNode> rows = container.queryItems("SELECT * FROM c", options, JsonNode.class).stream()
                .collect(Collectors.toList());
            perRange.put(r, rows.size());
            all.addAll(ints(rows, "n"));
        }
        all.sort(Integer::compare);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 40; i++) expected.add(i);
        assertEquals(expected, all, "the feed ranges together hold every item exactly once");
        assertTrue(perRange.values().stream().filter(n -> n > 0).count() >= 2,
            "40 distinct partition keys land in more than one physical partition: " + perRange);
    }

    @Test
    void feedRangeOfALogicalPartitionScopesAQuery() {
        CosmosContainer container = newPartitionedContainer();
        for (int i = 0; i < 12; i++) container.createItem(doc("id", "i" + i, "pk", "p" + (i % 3), "n", i));
        CosmosQueryRequestOptions options = new CosmosQueryRequestOptions()
            .setFeedRange(FeedRange.forLogicalPartition(new PartitionKey("p1")));
        List<Integer> ns = ints(container.queryItems("SELECT * FROM c", options, JsonNode.class).stream()
            .collect(Collectors.toList()), "n");
        ns.sort(Integer::compare);
        assertEquals(List.of(1, 4, 7, 10), ns, "the logical partition's feed range holds its items only");
    }

    @Test
    void hierarchicalPartitionKeyContainer() {
        CosmosDatabase database = newDatabase();
        PartitionKeyDefinition pk = new PartitionKeyDefinition();
        pk.setPaths(List.of("/tenant", "/user"));
        pk.setKind(PartitionKind.MULTI_HASH);
        pk.setVersion(PartitionKeyDefinitionVersion.V2);
        CosmosContainer container = newContainer(database, new CosmosContainerProperties(uid("c"), pk), null);
        CosmosContainerProperties read = container.read().getProperties();
        assertEquals(PartitionKind.MULTI_HASH, read.getPartitionKeyDefinition().getKind(), "kind MultiHash");
        assertEquals(List.of("/tenant", "/user"), read.getPartitionKeyDefinition().getPaths());
        for (int i = 0; i < 6; i++) {
            container.createItem(doc("id", "h" + i, "tenant", "t" + (i % 2), "user", "u" + i, "n", i));
        }
        PartitionKey full = new PartitionKeyBuilder().add("t1").add("u3").build();
        CosmosItemResponse<ObjectNode> item = container.readItem("h3", full, ObjectNode.class);
        assertEquals(3, item.getItem().get("n").asInt(), "point read with the full hierarchical key");
        PartitionKey prefix = new PartitionKeyBuilder().add("t1").build();
        List<Integer> ns = ints(container.queryItems("SELECT * FROM c",
            new CosmosQueryRequestOptions().setPartitionKey(prefix), JsonNode.class).stream().collect(Collectors.toList()), "n");
        ns.sort(Integer::compare);
        assertEquals(List.of(1, 3, 5), ns, "query scoped to the prefix t1");
    }

    @Test
    void uniqueKeyPolicyIsEnforced() {
        CosmosDatabase database = newDatabase();
        CosmosContainerProperties properties = new CosmosContainerProperties(uid("c"), "/pk");
        properties.setUniqueKeyPolicy(new UniqueKeyPolicy().setUniqueKeys(List.of(new UniqueKey(List.of("/email")))));
        CosmosContainer container = newContainer(database, properties, null);
        container.createItem(doc("id", "a", "pk", "p", "email", "x@example.com"));
        assertCosmos(409, "second item with the same unique key in the partition",
            () -> container.createItem(doc("id", "b", "pk", "p", "email", "x@example.com")));
        assertEquals(201, container.createItem(doc("id", "c", "pk", "other", "email", "x@example.com")).getStatusCode(),
            "unique keys are per logical partition");
        assertEquals(1, container.read().getProperties().getUniqueKeyPolicy().getUniqueKeys().size(), "unique key kept");
    }

    @Test
    void containerIdLongerThan255CharactersAnswers400() {
        CosmosDatabase database = newDatabase();
        assertCosmos(400, "create a container with a 256-character id",
            () -> database.createContainer("c".repeat(256), "/pk"));
    }

    @Test
    void readWithQuotaInfo() {
        CosmosContainer container = newContainer();
        container.createItem(doc("id", "a", "pk", "p"));
        CosmosContainerResponse response = container.read(new CosmosContainerRequestOptions().setQuotaInfoEnabled(true));
        Map<String, String> headers = response.getResponseHeaders();
        assertNotNull(headers.get("x-ms-resource-quota"), "x-ms-resource-quota with quota info");
        assertNotNull(headers.get("x-ms-resource-usage"), "x-ms-resource-usage with quota info");
        assertTrue(headers.get("x-ms-resource-usage").contains("documentsCount="), "usage: " + headers.get("x-ms-resource-usage"));
    }

    @Test
    void containerWithThroughputCreatesAnOffer() {
        CosmosDatabase database = newDatabase();
        CosmosContainer container = newContainer(database, new CosmosContainerProperties(uid("c"), "/pk"),
            ThroughputProperties.createManualThroughput(500));
        assertEquals(500, container.readThroughput().getProperties().getManualThroughput(), "container offer");
    }
}
