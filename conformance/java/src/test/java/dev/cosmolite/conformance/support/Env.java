package dev.cosmolite.conformance.support;

import com.azure.cosmos.ConsistencyLevel;
import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;

/** Where the suite points: COSMOS_ENDPOINT / COSMOS_KEY (set by with_server.py, or by hand for another account). */
public final class Env {
    public static final String EMULATOR_KEY =
        "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

    public static final String ENDPOINT = envOr("COSMOS_ENDPOINT", "https://localhost:8081/");
    public static final String KEY = envOr("COSMOS_KEY", EMULATOR_KEY);
    /** True when with_server.py started the server for this run (cosmolite; emulator-only checks allowed). */
    public static final boolean MANAGED = "1".equals(System.getenv("COSMOLITE_MANAGED"));

    private static CosmosClient shared;

    private Env() {}

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isEmpty() ? fallback : value;
    }

    /** Gateway mode, session consistency, endpoint discovery left on (the default). */
    public static CosmosClientBuilder builder() {
        return new CosmosClientBuilder()
            .endpoint(ENDPOINT)
            .key(KEY)
            .gatewayMode()
            .consistencyLevel(ConsistencyLevel.SESSION)
            .contentResponseOnWriteEnabled(true)
            .userAgentSuffix("cosmolite-java-conformance");
    }

    /** One client shared by the whole run (closed when the JVM exits). */
    public static synchronized CosmosClient client() {
        if (shared == null) {
            shared = builder().buildClient();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try { shared.close(); } catch (RuntimeException ignored) { }
            }));
        }
        return shared;
    }

    /** A separate client (its own caches); the caller closes it. */
    public static CosmosClient newClient() {
        return builder().buildClient();
    }

    public static CosmosAsyncClient newAsyncClient() {
        return builder().buildAsyncClient();
    }
}
