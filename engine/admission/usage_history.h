// UsageHistory: the RU each physical partition consumed in each second (wall-clock seconds since
// the epoch), for the cost report (cost_report.h). Only seconds with activity are kept, and at
// most the last kRetainedSeconds of them per partition, so an emulator left running for weeks
// holds at most a day of one-second buckets per busy partition (16 bytes each).
// Thread-safety: internally synchronized.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace cosmos::engine {

struct SecondOfUsage {
  int64_t second = 0;         // seconds since the epoch
  double request_units = 0;   // consumed in that second
};

class UsageHistory {
 public:
  // (container sequence number, partition key range id), as Throttle's; a shared-throughput
  // database is (−database sequence number, 0).
  using PartitionId = std::pair<int64_t, int64_t>;
  static constexpr int64_t kRetainedSeconds = 24 * 3600;

  void Record(PartitionId partition, double request_units, int64_t epoch_second);
  // The partition's seconds with activity, oldest first.
  std::vector<SecondOfUsage> Seconds(PartitionId partition) const;
  // Forgets every partition's history (a new measurement starts).
  void Clear();

 private:
  mutable std::mutex mu_;
  std::map<PartitionId, std::deque<SecondOfUsage>> seconds_;  // guarded by mu_
};

}  // namespace cosmos::engine
