// Admission: whether a request may run now, and what it used. With --rate-limit, each physical
// partition of a container (or a shared-throughput database as a whole) has a token bucket
// (throttle.h) filled at its share of the provisioned RU/s; a request on an empty bucket is
// refused with 429/3200 and the time to wait, and a finished request's charge is debited evenly
// from the partitions it reached. Without --rate-limit every request is admitted and only the
// RU are counted, for the partition report (GET /_cosmolite/partitions).
// Thread-safety: safe to call from many threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/admission/throttle.h"
#include "engine/shared/account_context.h"

namespace cosmos::engine {

class Admission {
 public:
  explicit Admission(AccountContext& context);

  // Admits a request on the container's physical partitions `range_ids` (all of them when
  // empty), or answers kRequestRateTooLarge with the time to wait.
  Status Admit(const ResolvedContainer& container, const std::vector<int64_t>& range_ids);
  // Debits a finished request's RU evenly from `range_ids` (all online ranges when empty).
  void Charge(const ResolvedContainer& container, const std::vector<int64_t>& range_ids, double request_units);

  // Per container and physical partition: RU consumed, requests throttled, documents and bytes
  // stored, and the `largest_logical_partitions` largest logical partitions, as JSON text.
  Result<std::string> PartitionReport(int64_t largest_logical_partitions);

 private:
  AccountContext& context_;
  Throttle throttle_;
};

}  // namespace cosmos::engine
