#include "engine/admission/admission.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "common/json.h"

namespace cosmos::engine {
namespace {

constexpr char kRequestRateTooLargeMessage[] =
    "Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request "
    "later. Learn more: http://aka.ms/cosmosdb-error-429";

int64_t EpochSecondNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Admission::Admission(AccountContext& context) : context_(context), throttle_(context.options().rate_limit) {}

Status Admission::Admit(const ResolvedContainer& container, const std::vector<int64_t>& range_ids) {
  if (!throttle_.enforcing() || container.throughput.ru_per_second() <= 0) return Status();
  double share = static_cast<double>(container.throughput.ru_per_second());
  if (container.shared_throughput) {
    // Containers of a shared-throughput database draw from one budget: the database's.
    if (auto wait = throttle_.Admit({-container.database.seq, 0}, share)) {
      return Status::RequestRateTooLarge(kRequestRateTooLargeMessage, *wait);
    }
    return Status();
  }
  share /= static_cast<double>(std::max<size_t>(1, container.routing.online_count()));
  std::vector<int64_t> ids = range_ids;
  if (ids.empty()) {
    for (const RoutingMap::Range* range : container.routing.online()) ids.push_back(range->id);
  }
  for (int64_t id : ids) {
    if (auto wait = throttle_.Admit({container.container.seq, id}, share)) {
      return Status::RequestRateTooLarge(kRequestRateTooLargeMessage, *wait);
    }
  }
  return Status();
}

void Admission::Charge(const ResolvedContainer& container, const std::vector<int64_t>& range_ids, double request_units) {
  const int64_t second = EpochSecondNow();
  if (container.shared_throughput) {
    throttle_.Charge({-container.database.seq, 0}, request_units);
    history_.Record({-container.database.seq, 0}, request_units, second);
    return;
  }
  std::vector<int64_t> ids = range_ids;
  if (ids.empty()) {
    for (const RoutingMap::Range* range : container.routing.online()) ids.push_back(range->id);
  }
  for (int64_t id : ids) {
    throttle_.Charge({container.container.seq, id}, request_units / static_cast<double>(ids.size()));
    history_.Record({container.container.seq, id}, request_units / static_cast<double>(ids.size()), second);
  }
}

Result<std::string> Admission::PartitionReport(int64_t largest_logical_partitions) {
  std::map<Throttle::PartitionId, PartitionUsage> usage = throttle_.Usage();
  Json containers = Json::array();
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto databases, txn.ListDatabases());
  for (const storage::DatabaseRecord& database : databases) {
    COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListContainers(database.seq));
    for (const storage::ContainerRecord& record : records) {
      ContainerAddress address{ResourceName{database.id, false}, ResourceName{record.id, false}};
      COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, address, /*as_owner=*/false));
      size_t online = std::max<size_t>(1, container->routing.online_count());
      Json partitions = Json::array();
      for (const RoutingMap::Range* range : container->routing.online()) {
        COSMOS_ASSIGN_OR_RETURN(auto size, txn.MeasureKeyRange(record.seq, range->min_inclusive, range->max_exclusive));
        COSMOS_ASSIGN_OR_RETURN(auto largest, txn.LargestLogicalPartitions(record.seq, range->min_inclusive,
                                                                           range->max_exclusive,
                                                                           largest_logical_partitions));
        Json logical = Json::array();
        for (const auto& [key, logical_size] : largest) {
          // Storage keys are "<effective partition key> <partition key JSON>".
          std::string value = key.substr(std::min(key.size(), key.find(' ') + 1));
          logical.push_back({{"partitionKey", Json::parse(value, nullptr, false).is_discarded()
                                                  ? Json(value) : Json::parse(value)},
                             {"documents", logical_size.document_count},
                             {"bytes", logical_size.total_bytes}});
        }
        const PartitionUsage& used = usage[{record.seq, range->id}];
        partitions.push_back({{"id", std::to_string(range->id)},
                              {"minInclusive", range->min_inclusive},
                              {"maxExclusive", range->max_exclusive},
                              {"requestUnits", std::round(used.request_units * 100) / 100},
                              {"throttledRequests", used.throttled},
                              {"documents", size.document_count},
                              {"bytes", size.total_bytes},
                              {"largestLogicalPartitions", std::move(logical)}});
      }
      COSMOS_ASSIGN_OR_RETURN(auto index, txn.MeasureIndex(record.seq));
      Json entry = {{"container", container->OwnerPath()},
                    {"indexEntries", index.entries},
                    {"indexBytes", index.bytes},
                    {"throughput", container->throughput.ru_per_second()},
                    {"autoscale", container->throughput.autoscale_max > 0},
                    {"sharedThroughput", container->shared_throughput},
                    {"throughputPerPartition",
                     container->shared_throughput ? 0.0
                                                  : static_cast<double>(container->throughput.ru_per_second()) /
                                                        static_cast<double>(online)},
                    {"physicalPartitions", std::move(partitions)}};
      if (container->shared_throughput) {
        const PartitionUsage& shared = usage[{-database.seq, 0}];
        entry["databaseRequestUnits"] = std::round(shared.request_units * 100) / 100;
        entry["databaseThrottledRequests"] = shared.throttled;
      }
      containers.push_back(std::move(entry));
    }
  }
  Json report = {{"rateLimiting", throttle_.enforcing()},
                 {"logicalPartitionCapBytes", context_.options().logical_partition_cap_bytes},
                 {"containers", std::move(containers)}};
  return report.dump(2);
}

Result<std::string> Admission::CostReport(const CostWindow& window) {
  Json entries = Json::array();
  COSMOS_ASSIGN_OR_RETURN(auto txn, context_.store().BeginRead());
  COSMOS_ASSIGN_OR_RETURN(auto databases, txn.ListDatabases());
  for (const storage::DatabaseRecord& database : databases) {
    ContainerUsage shared;  // the containers of a shared-throughput database draw on one budget
    bool has_shared = false;
    COSMOS_ASSIGN_OR_RETURN(auto records, txn.ListContainers(database.seq));
    for (const storage::ContainerRecord& record : records) {
      ContainerAddress address{ResourceName{database.id, false}, ResourceName{record.id, false}};
      COSMOS_ASSIGN_OR_RETURN(auto container, context_.FindContainer(txn, address, /*as_owner=*/false));
      COSMOS_ASSIGN_OR_RETURN(auto documents, txn.MeasureKeyRange(record.seq, "", kMaxEffectivePartitionKey));
      COSMOS_ASSIGN_OR_RETURN(auto index, txn.MeasureIndex(record.seq));
      if (container->shared_throughput) {
        has_shared = true;
        shared.stored_bytes += documents.total_bytes + index.bytes;
        continue;
      }
      ContainerUsage usage;
      usage.stored_bytes = documents.total_bytes + index.bytes;
      for (const RoutingMap::Range* range : container->routing.online()) {
        usage.partitions.push_back(history_.Seconds({record.seq, range->id}));
      }
      Json entry = EstimateMonthlyCost(usage, window, context_.options().list_prices);
      entry["container"] = container->OwnerPath();
      entry["throughput"] = container->throughput.ru_per_second();
      entries.push_back(std::move(entry));
    }
    if (has_shared) {
      shared.partitions.push_back(history_.Seconds({-database.seq, 0}));
      Json entry = EstimateMonthlyCost(shared, window, context_.options().list_prices);
      entry["database"] = "dbs/" + database.id;
      entry["sharedThroughput"] = true;
      entries.push_back(std::move(entry));
    }
  }
  Json report = {{"listPrices", ListPricesJson(context_.options().list_prices)},
                 {"hoursPerMonth", 730},
                 {"containers", std::move(entries)}};
  return report.dump(2);
}

}  // namespace cosmos::engine
