#include "engine/admission/usage_history.h"

namespace cosmos::engine {

void UsageHistory::Record(PartitionId partition, double request_units, int64_t epoch_second) {
  std::lock_guard<std::mutex> lock(mu_);
  std::deque<SecondOfUsage>& seconds = seconds_[partition];
  if (!seconds.empty() && seconds.back().second >= epoch_second) {
    // The same second (or a clock that stepped back): add to the newest bucket.
    seconds.back().request_units += request_units;
  } else {
    seconds.push_back({epoch_second, request_units});
  }
  while (seconds.front().second <= epoch_second - kRetainedSeconds) seconds.pop_front();
}

std::vector<SecondOfUsage> UsageHistory::Seconds(PartitionId partition) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto found = seconds_.find(partition);
  if (found == seconds_.end()) return {};
  return {found->second.begin(), found->second.end()};
}

void UsageHistory::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  seconds_.clear();
}

}  // namespace cosmos::engine
