// The `mixed` workload of the soak (bench/soak.py): a service's day in one stream of requests.
// Each request is one of six kinds, picked by a hash of its number:
//
//   create        17%  a new 1 KB document <tag>-<sequence> in partition p{sequence mod partitions}
//   upsert        16%  replaces a seeded document (seed-N keeps "n": N and gets a new "rev")
//   read          30%  point read of a seeded document
//   query-single  15%  SELECT * FROM c WHERE c.pk = @pk AND c.n >= @lo, first page (10 items)
//   query-cross    5%  SELECT TOP 10 c.id, c.n FROM c WHERE c.n >= @lo ORDER BY c.n, no partition key
//   delete        17%  the oldest document this run created (and whose create succeeded)
//
// Deletes take their ids from a queue that only acknowledged creates feed, and a delete takes its id
// out of the queue when it is sent: no two requests ever delete the same document, and a 404 is a
// real error. When the queue is empty (the first requests) a delete becomes a create. Creates and
// deletes balance, so the container keeps its size (the seeded documents plus a few hundred): a
// soak measures the server over time, not a growing database.
// The cross-partition query is one the gateway serves alone on a container of one partition key
// range (the default; with more ranges the server wants the SDK's plan, 400/1004): Prepare checks it.
// Thread-safety: Next() may run on several client threads; the queue has a mutex.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bench/workloads.h"

namespace cosmos::bench {
namespace {

enum Operation : uint8_t { kCreate, kUpsert, kRead, kQuerySingle, kQueryCross, kDelete, kOperations };

struct Share {
  Operation operation;
  const char* name;
  int percent;
};

// In Operation order; the percentages sum to 100.
constexpr Share kMix[] = {
    {kCreate, "create", 17},
    {kUpsert, "upsert", 16},
    {kRead, "read", 30},
    {kQuerySingle, "query-single", 15},
    {kQueryCross, "query-cross", 5},
    {kDelete, "delete", 17},
};
static_assert([] {
  int total = 0;
  for (int i = 0; i < kOperations; ++i) {
    if (kMix[i].operation != i) return false;
    total += kMix[i].percent;
  }
  return total == 100;
}());

class MixedWorkload : public Workload {
 public:
  explicit MixedWorkload(const WorkloadOptions& options) : options_(options) {
    if (options_.container.empty()) options_.container = "mixed";
    if (options_.document_bytes == 0) options_.document_bytes = 1024;
    options_.seed_documents = std::max<uint64_t>(1, options_.seed_documents);
  }

  std::vector<std::string> OperationNames() const override {
    std::vector<std::string> names;
    for (const Share& share : kMix) names.emplace_back(share.name);
    return names;
  }

  std::string Prepare(TargetSession& session) override {
    auto started = std::chrono::steady_clock::now();
    std::string error = session.EnsureContainer(options_.database, options_.container, 0, options_.indexing_policy);
    if (!error.empty()) return error;
    uint64_t failed = session.Bulk(
        options_.seed_documents, [this](uint64_t index) { return Upsert(index, 0); }, options_.setup_connections);
    if (failed > 0) return std::to_string(failed) + " seed upserts failed";
    // Both queries must be answered with rows: a 400/1004 (the SDK's plan needed) would otherwise
    // turn a twentieth of the soak into errors.
    for (Operation query : {kQuerySingle, kQueryCross}) {
      Response answer = session.Call(Query(query, 0));
      if (answer.result_int() != 200) {
        return std::string(kMix[query].name) + " check: " + std::to_string(answer.result_int()) + " " +
               answer.body().substr(0, 300);
      }
    }
    setup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return "";
  }

  CosmosCall Next(uint64_t sequence) const override {
    CosmosCall call;
    Operation operation = Pick(sequence);
    if (operation == kDelete) {
      if (auto victim = TakeOldestCreated()) {
        call = DeleteDocumentCall(options_.database, options_.container, victim->id, victim->partition_key);
      } else {
        operation = kCreate;  // nothing to delete yet
      }
    }
    switch (operation) {
      case kCreate: call = Create(sequence); break;
      case kUpsert: call = Upsert(SeedIndex(sequence), sequence); break;
      case kRead:
        call = ReadDocumentCall(options_.database, options_.container, SeedId(SeedIndex(sequence)),
                                PointPartitionKey(SeedIndex(sequence), options_.partitions));
        break;
      case kQuerySingle:
      case kQueryCross: call = Query(operation, sequence); break;
      default: break;  // kDelete: built above
    }
    call.operation = operation;
    return call;
  }

  void AddSetupFigures(nlohmann::json& report) const override {
    nlohmann::json mix = nlohmann::json::object();
    for (const Share& share : kMix) mix[share.name] = share.percent;
    report["mix_percent"] = mix;
    report["documents"] = options_.seed_documents;
    report["container"] = options_.container;
    report["setup_seconds"] = std::round(setup_seconds_ * 10) / 10;
    std::lock_guard lock(created_mutex_);
    report["created_not_deleted"] = created_.size();
  }

 private:
  struct CreatedDocument {
    std::string id;
    std::string partition_key;
  };

  static Operation Pick(uint64_t sequence) {
    int roll = static_cast<int>(Mix(sequence) % 100);
    for (const Share& share : kMix) {
      if (roll < share.percent) return share.operation;
      roll -= share.percent;
    }
    return kRead;
  }
  // A seeded document for request `sequence`: another hash than Pick's, so the kind of request
  // and the document are independent.
  uint64_t SeedIndex(uint64_t sequence) const { return Mix(sequence ^ 0x5EED5EED5EEDULL) % options_.seed_documents; }
  static std::string SeedId(uint64_t index) { return "seed-" + std::to_string(index); }

  static std::string Fields(uint64_t n, uint64_t revision) {
    return "\"n\":" + std::to_string(n) + ",\"kind\":\"bench\",\"rev\":" + std::to_string(revision);
  }

  CosmosCall Upsert(uint64_t index, uint64_t revision) const {
    std::string pk = PointPartitionKey(index, options_.partitions);
    return CreateDocumentCall(options_.database, options_.container,
                              PaddedDocument(SeedId(index), pk, Fields(index, revision), options_.document_bytes),
                              pk, true);
  }

  // A new document; its "n" lies above every seeded one, so the queries mostly read seeded
  // documents and reach the churning ones only at the top of the range. Remembered for a delete
  // once the create is acknowledged.
  CosmosCall Create(uint64_t sequence) const {
    CreatedDocument created{options_.run_tag + "-" + std::to_string(sequence),
                            PointPartitionKey(sequence, options_.partitions)};
    CosmosCall call = CreateDocumentCall(
        options_.database, options_.container,
        PaddedDocument(created.id, created.partition_key, Fields(options_.seed_documents + sequence, 0),
                       options_.document_bytes),
        created.partition_key, false);
    call.on_answer = [this, created = std::move(created)](uint16_t status) mutable {
      if (!Succeeded(status)) return;
      std::lock_guard lock(created_mutex_);
      created_.push_back(std::move(created));
    };
    return call;
  }

  std::optional<CreatedDocument> TakeOldestCreated() const {
    std::lock_guard lock(created_mutex_);
    if (created_.empty()) return std::nullopt;
    CreatedDocument oldest = std::move(created_.front());
    created_.pop_front();
    return oldest;
  }

  // One page of either query, @lo a seeded n (and @pk its partition for the single-partition one).
  CosmosCall Query(Operation operation, uint64_t sequence) const {
    uint64_t low = SeedIndex(sequence);
    QueryCallOptions page;
    page.max_item_count = options_.query_page_size;
    if (operation == kQueryCross) {
      return QueryDocumentsCall(options_.database, options_.container,
                                "SELECT TOP 10 c.id, c.n FROM c WHERE c.n >= @lo ORDER BY c.n",
                                {{"@lo", std::to_string(low)}}, page);
    }
    page.partition_key_value = PointPartitionKey(low, options_.partitions);
    return QueryDocumentsCall(options_.database, options_.container, "SELECT * FROM c WHERE c.pk = @pk AND c.n >= @lo",
                              {{"@pk", JsonString(page.partition_key_value)}, {"@lo", std::to_string(low)}}, page);
  }

  WorkloadOptions options_;
  double setup_seconds_ = 0;
  mutable std::mutex created_mutex_;
  mutable std::deque<CreatedDocument> created_;  // acknowledged creates not yet picked for a delete
};

}  // namespace

std::unique_ptr<Workload> MakeMixedWorkload(const WorkloadOptions& options) {
  return std::make_unique<MixedWorkload>(options);
}

}  // namespace cosmos::bench
