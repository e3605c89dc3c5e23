// Wire names of the Cosmos DB REST headers the server reads or writes.
#pragma once

namespace cosmos::server::headers {

// Request
inline constexpr char kAuthorization[] = "authorization";
inline constexpr char kCosmoliteKey[] = "x-cosmolite-key";  // the account key, for /_cosmolite/ alone
inline constexpr char kMsDate[] = "x-ms-date";
inline constexpr char kDate[] = "date";
inline constexpr char kPartitionKey[] = "x-ms-documentdb-partitionkey";
inline constexpr char kIsUpsert[] = "x-ms-documentdb-is-upsert";
inline constexpr char kResourceTokenExpiry[] = "x-ms-documentdb-expiry-seconds";
inline constexpr char kScriptEnableLogging[] = "x-ms-documentdb-script-enable-logging";
inline constexpr char kScriptLogResults[] = "x-ms-documentdb-script-log-results";
inline constexpr char kPreTriggerInclude[] = "x-ms-documentdb-pre-trigger-include";
inline constexpr char kPostTriggerInclude[] = "x-ms-documentdb-post-trigger-include";
inline constexpr char kIsQuery[] = "x-ms-documentdb-isquery";
inline constexpr char kIsQueryPlanRequest[] = "x-ms-cosmos-is-query-plan-request";
inline constexpr char kEnableCrossPartition[] = "x-ms-documentdb-query-enablecrosspartition";
inline constexpr char kPartitionKeyRangeId[] = "x-ms-documentdb-partitionkeyrangeid";
inline constexpr char kContentLocation[] = "Content-Location";
inline constexpr char kVersion[] = "x-ms-version";
inline constexpr char kPopulateIndexMetrics[] = "x-ms-cosmos-populateindexmetrics";
inline constexpr char kIndexUtilization[] = "x-ms-cosmos-index-utilization";
inline constexpr char kIntendedCollectionRid[] = "x-ms-cosmos-intended-collection-rid";
inline constexpr char kCorrelatedActivityId[] = "x-ms-cosmos-correlated-activityid";
inline constexpr char kStartEpk[] = "x-ms-start-epk";
inline constexpr char kEndEpk[] = "x-ms-end-epk";
inline constexpr char kOfferThroughput[] = "x-ms-offer-throughput";
inline constexpr char kOfferAutopilotSettings[] = "x-ms-cosmos-offer-autopilot-settings";
inline constexpr char kPopulateQueryMetrics[] = "x-ms-documentdb-populatequerymetrics";
inline constexpr char kSupportedQueryFeatures[] = "x-ms-cosmos-supported-query-features";
inline constexpr char kIsBatchRequest[] = "x-ms-cosmos-is-batch-request";
inline constexpr char kIsBatchAtomic[] = "x-ms-cosmos-batch-atomic";
inline constexpr char kBatchContinueOnError[] = "x-ms-cosmos-batch-continue-on-error";
inline constexpr char kMaxItemCount[] = "x-ms-max-item-count";
inline constexpr char kIfMatch[] = "if-match";
inline constexpr char kIfNoneMatch[] = "if-none-match";
inline constexpr char kIfModifiedSince[] = "if-modified-since";
inline constexpr char kAIm[] = "a-im";
inline constexpr char kPrefer[] = "prefer";
inline constexpr char kContentType[] = "content-type";
inline constexpr char kHost[] = "host";

// Both directions
inline constexpr char kActivityId[] = "x-ms-activity-id";
inline constexpr char kContinuation[] = "x-ms-continuation";
inline constexpr char kSessionToken[] = "x-ms-session-token";

// Response
inline constexpr char kRequestCharge[] = "x-ms-request-charge";
inline constexpr char kConsistencyLevel[] = "x-ms-consistency-level";
inline constexpr char kRetryAfterMs[] = "x-ms-retry-after-ms";
inline constexpr char kPopulateQuotaInfo[] = "x-ms-documentdb-populatequotainfo";
inline constexpr char kPopulatePartitionStatistics[] = "x-ms-documentdb-populatepartitionstatistics";
inline constexpr char kResourceQuota[] = "x-ms-resource-quota";
inline constexpr char kResourceUsage[] = "x-ms-resource-usage";
inline constexpr char kOfferReplacePending[] = "x-ms-offer-replace-pending";
inline constexpr char kMinThroughput[] = "x-ms-cosmos-min-throughput";
inline constexpr char kIndexTransformationProgress[] = "x-ms-documentdb-collection-index-transformation-progress";
inline constexpr char kSubstatus[] = "x-ms-substatus";
inline constexpr char kItemCount[] = "x-ms-item-count";
inline constexpr char kQueryMetrics[] = "x-ms-documentdb-query-metrics";
// Fan-out, made visible (ours, documented in the README): how many physical partitions a query
// reaches, which, and how many documents it read to return what it returned.
inline constexpr char kCosmolitePartitionCount[] = "x-cosmolite-physical-partitions";
inline constexpr char kCosmolitePartitionIds[] = "x-cosmolite-partition-key-range-ids";
inline constexpr char kCosmoliteDocumentsScanned[] = "x-cosmolite-documents-scanned";
inline constexpr char kCosmoliteAccessPath[] = "x-cosmolite-access-path";
inline constexpr char kCosmoliteDocumentsReturned[] = "x-cosmolite-documents-returned";
inline constexpr char kCosmoliteNarrowedByPartitionKey[] = "x-cosmolite-narrowed-by-partition-key";
inline constexpr char kEtag[] = "etag";
inline constexpr char kLsn[] = "lsn";
inline constexpr char kGlobalCommittedLsn[] = "x-ms-global-committed-lsn";
inline constexpr char kContentPath[] = "x-ms-content-path";
inline constexpr char kAltContentPath[] = "x-ms-alt-content-path";
inline constexpr char kRequestDurationMs[] = "x-ms-request-duration-ms";
inline constexpr char kServiceVersion[] = "x-ms-serviceversion";
inline constexpr char kResponseDate[] = "Date";
inline constexpr char kResponseContentType[] = "Content-Type";

}  // namespace cosmos::server::headers
