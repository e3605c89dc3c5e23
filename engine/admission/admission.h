// Admission: whether a request may run now, and what it used. With --rate-limit, each physical
// partition of a container (or a shared-throughput database as a whole) has a token bucket
// (throttle.h) filled at its share of the provisioned RU/s; a request on an empty bucket is
// refused with 429/3200 and the time to wait, and a finished request's charge is debited evenly
// from the partitions it reached. Without --rate-limit every request is admitted and only the
// RU are counted, for the partition report (GET /_cosmolite/partitions), and each partition's RU
// per second are kept for the cost report (GET /_cosmolite/cost-report, cost_report.h).
// Thread-safety: safe to call from many threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/admission/cost_report.h"
#include "engine/admission/throttle.h"
#include "engine/admission/usage_history.h"
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

  // Per container: its index's entries and bytes; per physical partition: RU consumed, requests
  // throttled, documents and bytes stored, and the `largest_logical_partitions` largest logical
  // partitions, as JSON text.
  Result<std::string> PartitionReport(int64_t largest_logical_partitions);
  // What each container's (and shared-throughput database's) workload in `window` would cost per
  // month as provisioned, autoscale and serverless throughput, at the account's list prices, as
  // JSON text: {"listPrices":{...},"containers":[{"container", ...EstimateMonthlyCost}], ...}.
  Result<std::string> CostReport(const CostWindow& window);
  // Starts a new measurement: forgets every partition's RU per second.
  void ClearUsageHistory() { history_.Clear(); }

 private:
  AccountContext& context_;
  Throttle throttle_;
  UsageHistory history_;
};

}  // namespace cosmos::engine
