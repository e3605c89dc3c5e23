// The cost report (GET /_cosmolite/cost-report): from the RU a container's physical partitions
// actually consumed in each second of a run, what the workload would need and cost per month
// under the three ways the service bills throughput, at published list prices (docs/cost-report.md
// states every rule below with its source):
//   provisioned (manual): the container's RU/s are split evenly over its N physical partitions,
//     so serving the hottest partition's busiest second takes N × that many RU/s; at least
//     400 RU/s, in steps of 100, billed every hour of the month.
//   autoscale: the maximum Tmax is that same need in steps of 1,000 (at least 1,000); each hour is
//     billed at the highest RU/s each partition scaled to in it, never below a tenth of its share of
//     Tmax (per-partition "dynamic" scaling, the default for accounts created since September 2024),
//     at 1.5× the manual rate.
//   serverless: the RU consumed, per million.
// Storage (documents and index, at least 1 GB for a container holding anything) is the same under
// all three and reported apart.
// A run shorter than a month stands for it: its billing hours repeat. `hour_seconds` compresses
// time for workshops: with 10, every 10 seconds of the run are billed as one hour.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/result.h"
#include "engine/admission/usage_history.h"

namespace cosmos::engine {

// USD list prices of a single-write-region account (docs/cost-report.md: the table, its date and
// sources). Overridden with --list-prices.
struct ListPrices {
  double provisioned_per_100_rus_hour = 0.008;  // manual throughput, per 100 RU/s per hour
  double autoscale_per_100_rus_hour = 0.012;    // autoscale, per 100 RU/s per hour (1.5× manual)
  double serverless_per_million_rus = 0.25;     // serverless, per million RU consumed
  double storage_per_gb_month = 0.25;           // transactional storage, per GB per month
};
inline constexpr char kListPricesAsOf[] = "2024-07-26";

// Parses "provisioned=0.008,autoscale=0.012,serverless=0.25,storage=0.25" (any subset; the rest
// keep their defaults). kBadRequest names a bad entry.
Result<ListPrices> ParseListPrices(std::string_view text);
Json ListPricesJson(const ListPrices& prices);

// The seconds of the run the report covers; unset ends: the first and last second with activity.
struct CostWindow {
  std::optional<int64_t> from_second;
  std::optional<int64_t> to_second;
  int64_t hour_seconds = 3600;
};

// One container (or shared-throughput database): its physical partitions' seconds of usage (one
// vector per partition, oldest first; an idle partition has an empty one) and its stored bytes.
struct ContainerUsage {
  std::vector<std::vector<SecondOfUsage>> partitions;
  int64_t stored_bytes = 0;
};

// {"observed":{...},"provisioned":{...},"autoscale":{...},"serverless":{...},"storage":{...},
//  "cheapest":"...","autoscaleVersusProvisioned":-0.42}; {"observed":{"requestUnits":0}} when the
// window holds no activity.
Json EstimateMonthlyCost(const ContainerUsage& usage, const CostWindow& window, const ListPrices& prices);

}  // namespace cosmos::engine
