// Throttle: the provisioned-throughput budget of each physical partition, as a token bucket.
// A container's RU/s are split evenly across its physical partitions; each partition's bucket
// holds at most one second of its share and refills continuously. A request is admitted while
// its partition's bucket is above zero and pays its charge afterwards (so one expensive request
// can take the bucket below zero, and the next ones wait, as on the service). A refused request
// learns how long until the bucket is positive again: x-ms-retry-after-ms.
// It also keeps per-partition totals (RU consumed, requests throttled) for /_cosmolite/partitions.
// Thread-safety: internally synchronized.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace cosmos::engine {

struct PartitionUsage {
  double request_units = 0;  // RU charged to this partition since start
  int64_t throttled = 0;     // requests refused with 429
};

class Throttle {
 public:
  using Clock = std::chrono::steady_clock;
  // (container sequence number, partition key range id)
  using PartitionId = std::pair<int64_t, int64_t>;

  // With `enforce` false nothing is ever refused, but usage is still counted.
  explicit Throttle(bool enforce) : enforce_(enforce) {}

  // Whether a request may run on `partition`, whose share is `ru_per_second`. nullopt: admitted;
  // otherwise the milliseconds until the bucket refills above zero (the request is counted as
  // throttled).
  std::optional<int64_t> Admit(PartitionId partition, double ru_per_second, Clock::time_point now = Clock::now());
  // Debits a finished request's charge.
  void Charge(PartitionId partition, double request_units);
  // Usage of every partition that has seen a request.
  std::map<PartitionId, PartitionUsage> Usage() const;
  bool enforcing() const { return enforce_; }

 private:
  struct Bucket {
    double tokens = 0;
    double capacity = 0;  // one second of the partition's share
    Clock::time_point refilled;
    bool started = false;
    PartitionUsage usage;
  };

  const bool enforce_;
  mutable std::mutex mu_;
  std::map<PartitionId, Bucket> buckets_;  // guarded by mu_
};

}  // namespace cosmos::engine
