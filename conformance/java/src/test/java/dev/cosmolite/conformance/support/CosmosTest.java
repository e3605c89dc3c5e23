package dev.cosmolite.conformance.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.CosmosDiagnostics;
import com.azure.cosmos.CosmosDiagnosticsContext;
import com.azure.cosmos.CosmosDiagnosticsRequestInfo;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.function.Executable;

/** Base of every test class: the shared client, unique names, databases deleted after each test, helpers. */
public abstract class CosmosTest {
    public static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> databases = new ArrayList<>();
    /** The database of the last container made by newContainer()/newPartitionedContainer(). */
    protected CosmosDatabase database;

    protected static CosmosClient client() {
        return Env.client();
    }

    protected static String uid(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Registers a database id created by other means so that it is deleted after the test. */
    protected void track(String databaseId) {
        databases.add(databaseId);
    }

    protected CosmosDatabase newDatabase() {
        String id = uid("java-" + getClass().getSimpleName().replace("Test", "").toLowerCase());
        client().createDatabase(id);
        databases.add(id);
        return client().getDatabase(id);
    }

    /** A new database with one container partitioned on /pk (400 RU/s: one physical partition). */
    protected CosmosContainer newContainer() {
        return newContainer(newDatabase(), new CosmosContainerProperties(uid("c"), "/pk"), null);
    }

    /** A new database with one container on /pk of 40,000 RU/s: four physical partitions. */
    protected CosmosContainer newPartitionedContainer() {
        CosmosContainer container = newContainer(newDatabase(), new CosmosContainerProperties(uid("c"), "/pk"),
            ThroughputProperties.createManualThroughput(40_000));
        assertEquals(4, container.getFeedRanges().size(), "a 40,000 RU/s container has 4 physical partitions");
        return container;
    }

    protected CosmosContainer newContainer(CosmosDatabase database, CosmosContainerProperties properties,
                                           ThroughputProperties throughput) {
        this.database = database;
        if (throughput == null) {
            database.createContainer(properties);
        } else {
            database.createContainer(properties, throughput);
        }
        return database.getContainer(properties.getId());
    }

    /**
     * Creates a container from its JSON definition, for shapes the public model classes cannot express (legacy
     * indexing policies, geospatialConfig, a numeric partition key version). The SDK still signs and sends it.
     */
    protected CosmosContainer newContainerFromJson(CosmosDatabase database, String json, ThroughputProperties throughput) {
        com.azure.cosmos.implementation.DocumentCollection collection =
            new com.azure.cosmos.implementation.DocumentCollection(json);
        CosmosContainerProperties properties = com.azure.cosmos.implementation.ImplementationBridgeHelpers
            .CosmosContainerPropertiesHelper.getCosmosContainerPropertiesAccessor().create(collection);
        return newContainer(database, properties, throughput);
    }

    /** A hierarchical (MultiHash, version 2) container on the given paths, its definition sent with "version": 2. */
    protected CosmosContainer newHierarchicalContainer(CosmosDatabase database, String... paths) {
        StringBuilder json = new StringBuilder("{\"id\":\"" + uid("h") + "\",\"partitionKey\":{\"paths\":[");
        for (int i = 0; i < paths.length; i++) json.append(i == 0 ? "" : ",").append('"').append(paths[i]).append('"');
        json.append("],\"kind\":\"MultiHash\",\"version\":2}}");
        return newContainerFromJson(database, json.toString(), null);
    }

    @AfterEach
    void deleteDatabases() {
        for (String id : databases) {
            try {
                client().getDatabase(id).delete();
            } catch (CosmosException e) {
                if (e.getStatusCode() != 404) {
                    System.out.println("# warning: could not delete database " + id + ": " + e.getStatusCode());
                }
            }
        }
        databases.clear();
    }

    // ---------------------------------------------------------------- assertions

    /** Runs the action, expects a CosmosException with that status code, returns it. */
    public static CosmosException assertCosmos(int status, String what, Executable action) {
        try {
            action.execute();
        } catch (Throwable t) {
            CosmosException e = cosmosCause(t);
            if (e == null) fail(what + ": expected CosmosException " + status + " but got " + t, t);
            assertEquals(status, e.getStatusCode(), what + ": status (message: " + shortMessage(e) + ")");
            return e;
        }
        fail(what + ": expected CosmosException " + status + " but the call succeeded");
        return null;
    }

    public static CosmosException assertCosmos(int status, int subStatus, String what, Executable action) {
        CosmosException e = assertCosmos(status, what, action);
        if (e.getSubStatusCode() != subStatus) {
            fail(what + ": expected substatus " + subStatus + " but got " + e.getStatusCode() + "/" + e.getSubStatusCode()
                + " (message: " + shortMessage(e) + ")");
        }
        return e;
    }

    /**
     * The CosmosException behind a failure: itself, or (when the SDK ran requests on several partition key ranges
     * in parallel and more than one failed) the first of reactor's CompositeException, or a cause.
     */
    public static CosmosException cosmosCause(Throwable t) {
        for (Throwable cur = t; cur != null; cur = cur.getCause()) {
            if (cur instanceof CosmosException) return (CosmosException) cur;
            for (Throwable inner : reactor.core.Exceptions.unwrapMultiple(cur)) {
                if (inner instanceof CosmosException) return (CosmosException) inner;
            }
            if (cur.getCause() == cur) break;
        }
        return null;
    }

    public static String shortMessage(CosmosException e) {
        String m = String.valueOf(e.getShortMessage() != null ? e.getShortMessage() : e.getMessage())
            .replace("\r", "").replace('\n', ' ');
        return m.length() > 600 ? m.substring(0, 600) + "..." : m;
    }

    public static void assertCharge(double charge, String what) {
        assertTrue(charge > 0, what + ": request charge should be > 0, was " + charge);
    }

    // ---------------------------------------------------------------- JSON

    public static ObjectNode doc(Object... keyValues) {
        ObjectNode node = JSON.createObjectNode();
        for (int i = 0; i < keyValues.length; i += 2) {
            node.set((String) keyValues[i], JSON.valueToTree(keyValues[i + 1]));
        }
        return node;
    }

    public static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    public static <T> List<T> list(Iterable<T> iterable) {
        List<T> out = new ArrayList<>();
        for (T t : iterable) out.add(t);
        return out;
    }

    public static List<Integer> ints(Collection<JsonNode> nodes, String field) {
        List<Integer> out = new ArrayList<>();
        for (JsonNode n : nodes) out.add(field == null ? n.asInt() : n.get(field).asInt());
        return out;
    }

    // ---------------------------------------------------------------- diagnostics

    /** Every transport request of an operation (gateway statistics): partition key range, status, substatus. */
    public static Collection<CosmosDiagnosticsRequestInfo> requests(CosmosDiagnostics diagnostics) {
        assertNotNull(diagnostics, "diagnostics");
        CosmosDiagnosticsContext context = diagnostics.getDiagnosticsContext();
        assertNotNull(context, "diagnostics context");
        return context.getRequestInfo();
    }

    /** Partition key range ids that served the Document requests of an operation. */
    public static Set<String> rangesServing(CosmosDiagnostics diagnostics, String requestTypeFragment) {
        Set<String> ranges = new LinkedHashSet<>();
        for (CosmosDiagnosticsRequestInfo info : requests(diagnostics)) {
            if (info.getRequestType().contains(requestTypeFragment) && info.getPartitionKeyRangeId() != null) {
                ranges.add(info.getPartitionKeyRangeId());
            }
        }
        return ranges;
    }

    public static <T> T retryUntil(Supplier<T> action, java.util.function.Predicate<T> done, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        T value = action.get();
        while (!done.test(value) && System.currentTimeMillis() < deadline) {
            sleep(200);
            value = action.get();
        }
        return value;
    }

    public static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }

    public static <T> T first(Iterable<T> iterable) {
        Iterator<T> it = iterable.iterator();
        return it.hasNext() ? it.next() : null;
    }
}
