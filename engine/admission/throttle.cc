#include "engine/admission/throttle.h"

#include <algorithm>
#include <cmath>

namespace cosmos::engine {

std::optional<int64_t> Throttle::Admit(PartitionId partition, double ru_per_second, Clock::time_point now) {
  if (!enforce_ || ru_per_second <= 0) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  Bucket& bucket = buckets_[partition];
  if (!bucket.started || bucket.capacity != ru_per_second) {
    // A new partition, or new throughput: start from a full second of the new share.
    bucket.capacity = ru_per_second;
    bucket.tokens = bucket.started ? std::min(bucket.tokens, ru_per_second) : ru_per_second;
    bucket.refilled = now;
    bucket.started = true;
  }
  double elapsed_s = std::chrono::duration<double>(now - bucket.refilled).count();
  if (elapsed_s > 0) {
    bucket.tokens = std::min(bucket.capacity, bucket.tokens + elapsed_s * bucket.capacity);
    bucket.refilled = now;
  }
  if (bucket.tokens > 0) return std::nullopt;
  ++bucket.usage.throttled;
  // The first whole millisecond at which the bucket is above zero again.
  double wait_ms = (-bucket.tokens / bucket.capacity) * 1000.0;
  return static_cast<int64_t>(std::floor(wait_ms)) + 1;
}

void Throttle::Charge(PartitionId partition, double request_units) {
  std::lock_guard<std::mutex> lock(mu_);
  Bucket& bucket = buckets_[partition];
  bucket.usage.request_units += request_units;
  if (bucket.started) bucket.tokens -= request_units;
}

std::map<Throttle::PartitionId, PartitionUsage> Throttle::Usage() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<PartitionId, PartitionUsage> usage;
  for (const auto& [partition, bucket] : buckets_) usage[partition] = bucket.usage;
  return usage;
}

}  // namespace cosmos::engine
