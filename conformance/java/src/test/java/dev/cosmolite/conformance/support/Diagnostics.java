package dev.cosmolite.conformance.support;

import java.util.ArrayList;
import java.util.List;

import com.azure.cosmos.CosmosDiagnostics;
import com.fasterxml.jackson.databind.JsonNode;

/** Reads the per-request gateway statistics out of the diagnostics JSON (status, substatus, range, session token). */
public final class Diagnostics {
    private Diagnostics() {}

    public static final class GatewayCall {
        public final int statusCode;
        public final int subStatusCode;
        public final String partitionKeyRangeId;
        public final String sessionToken;
        public final String operationType;
        public final String resourceType;
        /** The request URI as sent. */
        public final String endpoint;
        public final JsonNode raw;

        GatewayCall(JsonNode node) {
            raw = node;
            statusCode = node.path("statusCode").asInt(-1);
            subStatusCode = node.path("subStatusCode").asInt(-1);
            partitionKeyRangeId = node.hasNonNull("partitionKeyRangeId") ? node.get("partitionKeyRangeId").asText() : null;
            sessionToken = node.hasNonNull("sessionToken") ? node.get("sessionToken").asText() : null;
            operationType = node.path("operationType").asText("");
            resourceType = node.path("resourceType").asText("");
            endpoint = node.path("endpoint").asText("");
        }

        @Override
        public String toString() {
            return resourceType + ":" + operationType + " " + statusCode + "/" + subStatusCode + " range=" + partitionKeyRangeId
                + " session=" + sessionToken + " uri=" + endpoint;
        }
    }

    public static List<GatewayCall> gatewayCalls(CosmosDiagnostics diagnostics) {
        if (diagnostics == null) return new ArrayList<>();
        return gatewayCalls(CosmosTest.json(diagnostics.toString()));
    }

    /** Every gatewayStatistics entry of a diagnostics JSON document, however deeply nested. */
    public static List<GatewayCall> gatewayCalls(JsonNode diagnosticsJson) {
        List<GatewayCall> out = new ArrayList<>();
        collect(diagnosticsJson, out);
        return out;
    }

    private static void collect(JsonNode node, List<GatewayCall> out) {
        if (node == null) return;
        if (node.isObject()) {
            node.fields().forEachRemaining(entry -> {
                if (entry.getKey().equals("gatewayStatisticsList") && entry.getValue().isArray()) {
                    for (JsonNode call : entry.getValue()) out.add(new GatewayCall(call));
                } else if (entry.getKey().equals("gatewayStatistics") && entry.getValue().isObject()) {
                    out.add(new GatewayCall(entry.getValue()));
                } else {
                    collect(entry.getValue(), out);
                }
            });
        } else if (node.isArray()) {
            for (JsonNode child : node) collect(child, out);
        }
    }
}
