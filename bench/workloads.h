// The benchmark workloads: what to set up on the target, what the n-th request is, and what to
// check afterwards. Adding one (e.g. a change-feed drain) is one small class registered in
// MakeWorkload.
// Thread-safety: Next() is const and called concurrently from the client threads; Prepare() and
// Verify() run alone on the main thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/cosmos_request.h"
#include "bench/http_client.h"
#include "bench/load_driver.h"
#include "bench/signing.h"

namespace cosmos::bench {

struct WorkloadOptions {
  std::string database = "bench";
  std::string container;            // empty: the workload's own default
  size_t document_bytes = 0;        // 0: the workload's own default (1 KB; telemetry 300, queries 256)
  int partitions = 100;             // point workloads spread documents over p0 .. p{n-1}
  uint64_t seed_documents = 10000;  // read/upsert/queries: documents written before the clock starts
  int tenants = 100;                // telemetry: partition keys tenantNNN:yyyymm
  int count_page_size = -1;         // x-ms-max-item-count when counting documents
  int query_page_size = 10;         // x-ms-max-item-count of the query workloads' pages
  int setup_connections = 16;       // connections used to seed documents
  std::string run_tag;              // makes new ids unique across invocations
  std::string indexing_policy;      // JSON text for the containers a workload creates; empty: default
};

// Everything a workload may do outside the measured load.
class TargetSession {
 public:
  // `timeout`: for each single request (setup calls, read-feed pages).
  TargetSession(const Target& target, net::ssl::context* tls_context, const MasterKeySigner& signer,
                std::chrono::milliseconds timeout = std::chrono::seconds(120));

  // One request, waited for. A transport error comes back as status 0 (the reason in the body).
  Response Call(const CosmosCall& call);
  // Sends `count` requests made by `next` over `connections`, closed loop; returns how many
  // did not get a 2xx answer.
  uint64_t Bulk(uint64_t count, const RequestFactory& next, int connections);
  // Creates the database and a container partitioned on /pk (409, already there, is fine).
  // Returns an error message, empty on success.
  // `throughput` > 0: created with that many RU/s (one physical partition per 10,000).
  // `indexing_policy`: JSON text; empty: the target's default policy.
  std::string EnsureContainer(const std::string& database, const std::string& container, int64_t throughput = 0,
                              const std::string& indexing_policy = "");
  // Counts a container's documents through the read feed (x-ms-max-item-count, following
  // x-ms-continuation until absent, summing _count). Returns -1 (and `error`) on failure.
  int64_t CountDocuments(const std::string& database, const std::string& container, int page_size,
                         int* pages, std::string* error);

 private:
  Target target_;
  net::ssl::context* tls_context_;
  const MasterKeySigner& signer_;
  SyncClient client_;
  DateClock date_;
};

class Workload {
 public:
  virtual ~Workload() = default;
  // Open-loop workloads run at the --rate for one window; the others run closed loop.
  virtual bool OpenLoop() const { return false; }
  // Before the clock starts. Returns an error message, empty on success.
  virtual std::string Prepare(TargetSession& session) = 0;
  // The request numbered `sequence`.
  virtual CosmosCall Next(uint64_t sequence) const = 0;
  // After the load: checks what the target holds and adds figures to `report`. Returns an
  // error message (e.g. documents lost), empty on success.
  virtual std::string Verify(TargetSession& session, const LoadResult& result, nlohmann::json& report);
  // Figures of the set-up (e.g. how many documents were seeded and how long it took), added to
  // every report line.
  virtual void AddSetupFigures(nlohmann::json& report) const;
  // The names of the workload's kinds of request, indexed by CosmosCall::operation: each gets its
  // own figures in the report. Empty for a workload of one kind.
  virtual std::vector<std::string> OperationNames() const { return {}; }
};

// Returns null for an unknown name.
std::unique_ptr<Workload> MakeWorkload(const std::string& name, const WorkloadOptions& options);
std::vector<std::string> WorkloadNames();

// The soak's mix of creates, upserts, reads, queries and deletes (mixed_workload.cc).
std::unique_ptr<Workload> MakeMixedWorkload(const WorkloadOptions& options);

// A well-mixed 64-bit hash, so "random" picks are a pure function of the sequence number.
uint64_t Mix(uint64_t value);
// The point workloads' partition key of document `index`: p{index mod partitions}.
std::string PointPartitionKey(uint64_t index, int partitions);

// A JSON document of exactly `bytes` bytes (when `bytes` is larger than its fixed fields):
// {"id":..., "pk":..., <fields>, "pad":"xxxx..."}. `fields` is JSON text without braces.
std::string PaddedDocument(const std::string& id, const std::string& partition_key, const std::string& fields,
                           size_t bytes);

}  // namespace cosmos::bench
