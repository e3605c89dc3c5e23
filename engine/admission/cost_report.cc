#include "engine/admission/cost_report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "common/encoding.h"
#include "engine/catalog/throughput.h"

namespace cosmos::engine {
namespace {

constexpr double kHoursPerMonth = 730;  // the service bills a month as 730 hours
constexpr double kBytesPerGb = 1024.0 * 1024.0 * 1024.0;
constexpr int64_t kManualStep = 100;
constexpr int64_t kAutoscaleStep = 1000;
constexpr double kAutoscaleFloor = 0.1;  // autoscale never scales below a tenth of Tmax

int64_t RoundUpTo(double value, int64_t step) {
  return static_cast<int64_t>(std::ceil(value / static_cast<double>(step) - 1e-9)) * step;
}

double Cents(double usd) { return std::round(usd * 100) / 100; }
double Hundredths(double value) { return std::round(value * 100) / 100; }

}  // namespace

Result<ListPrices> ParseListPrices(std::string_view text) {
  ListPrices prices;
  for (const NameValue& entry : SplitNameValues(text, ',')) {
    std::string_view name = entry.name;
    double value = -1;
    if (entry.has_value) {
      std::string_view number = entry.value;
      auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
      if (error != std::errc() || end != number.data() + number.size()) value = -1;
    }
    double* price = name == "provisioned" ? &prices.provisioned_per_100_rus_hour
                    : name == "autoscale" ? &prices.autoscale_per_100_rus_hour
                    : name == "serverless" ? &prices.serverless_per_million_rus
                    : name == "storage"    ? &prices.storage_per_gb_month
                                           : nullptr;
    if (price == nullptr || !(value >= 0) || !std::isfinite(value)) {
      return Status::BadRequest("A list price is name=USD with a name of provisioned, autoscale, serverless or "
                                "storage and a non-negative number, not '" + std::string(name) +
                                (entry.has_value ? "=" + std::string(entry.value) : std::string()) + "'.");
    }
    *price = value;
  }
  return prices;
}

Json ListPricesJson(const ListPrices& prices) {
  return {{"currency", "USD"},
          {"asOf", kListPricesAsOf},
          {"provisionedPer100RuPerSecondPerHour", prices.provisioned_per_100_rus_hour},
          {"autoscalePer100RuPerSecondPerHour", prices.autoscale_per_100_rus_hour},
          {"serverlessPerMillionRu", prices.serverless_per_million_rus},
          {"storagePerGbMonth", prices.storage_per_gb_month}};
}

Json EstimateMonthlyCost(const ContainerUsage& usage, const CostWindow& window, const ListPrices& prices) {
  const int64_t hour_seconds = std::max<int64_t>(1, window.hour_seconds);
  // The window: the requested ends, else the first and last second with activity.
  int64_t first = INT64_MAX;
  int64_t last = INT64_MIN;
  for (const auto& seconds : usage.partitions) {
    for (const SecondOfUsage& used : seconds) {
      first = std::min(first, used.second);
      last = std::max(last, used.second);
    }
  }
  first = window.from_second.value_or(first);
  last = window.to_second.value_or(last);
  const size_t partition_count = std::max<size_t>(1, usage.partitions.size());
  const double partitions = static_cast<double>(partition_count);

  // Per partition: its busiest second over the window, and its busiest second in each billing hour.
  double total = 0;
  double hottest_second = 0;
  std::map<int64_t, double> container_seconds;  // second → RU of all partitions, for the container's peak
  std::vector<std::map<int64_t, double>> hourly_peaks(partition_count);
  for (size_t p = 0; p < usage.partitions.size(); ++p) {
    for (const SecondOfUsage& used : usage.partitions[p]) {
      if (used.second < first || used.second > last) continue;
      total += used.request_units;
      hottest_second = std::max(hottest_second, used.request_units);
      container_seconds[used.second] += used.request_units;
      double& peak = hourly_peaks[p][(used.second - first) / hour_seconds];
      peak = std::max(peak, used.request_units);
    }
  }
  if (total <= 0 || last < first) return {{"observed", {{"requestUnits", 0}}}};
  const int64_t window_seconds = last - first + 1;
  const int64_t billing_hours = (window_seconds + hour_seconds - 1) / hour_seconds;
  double container_peak = 0;
  for (const auto& [second, request_units] : container_seconds) container_peak = std::max(container_peak, request_units);

  // Provisioned: every partition gets 1/N of the RU/s, so the hottest partition's busiest second sets it.
  const double needed = hottest_second * partitions;
  const int64_t manual = std::max(kMinimumManualThroughput, RoundUpTo(needed, kManualStep));
  const double manual_monthly = static_cast<double>(manual) / 100 * prices.provisioned_per_100_rus_hour * kHoursPerMonth;

  // Autoscale: each partition scales within [Tmax/N/10, Tmax/N]; an hour is billed at what each reached.
  const int64_t autoscale_max = std::max(kMinimumAutoscaleMax, RoundUpTo(needed, kAutoscaleStep));
  const double partition_floor = kAutoscaleFloor * static_cast<double>(autoscale_max) / partitions;
  double billed_sum = 0;  // Σ over billing hours of the RU/s billed in that hour
  double busiest_hour = 0;
  for (int64_t hour = 0; hour < billing_hours; ++hour) {
    double billed = 0;
    for (const auto& peaks : hourly_peaks) {
      auto found = peaks.find(hour);
      billed += std::max(partition_floor, found == peaks.end() ? 0.0 : found->second);
    }
    billed = static_cast<double>(RoundUpTo(billed, kManualStep));
    billed_sum += billed;
    busiest_hour = std::max(busiest_hour, billed);
  }
  const double average_billed = billed_sum / static_cast<double>(billing_hours);
  const double autoscale_monthly = average_billed / 100 * prices.autoscale_per_100_rus_hour * kHoursPerMonth;

  // Serverless: the run's average rate, for a month.
  const double average_rate = total / static_cast<double>(window_seconds);
  const double monthly_rus = average_rate * kHoursPerMonth * 3600;
  const double serverless_monthly = monthly_rus / 1e6 * prices.serverless_per_million_rus;

  const double stored_gb = static_cast<double>(usage.stored_bytes) / kBytesPerGb;
  const double billed_gb = usage.stored_bytes > 0 ? std::max(1.0, stored_gb) : 0.0;
  const double storage_monthly = billed_gb * prices.storage_per_gb_month;

  std::string cheapest = manual_monthly <= autoscale_monthly ? "provisioned" : "autoscale";
  if (serverless_monthly < std::min(manual_monthly, autoscale_monthly)) cheapest = "serverless";
  return {
      {"observed",
       {{"fromSecond", first},
        {"toSecond", last},
        {"seconds", window_seconds},
        {"secondsPerBillingHour", hour_seconds},
        {"billingHours", billing_hours},
        {"requestUnits", Hundredths(total)},
        {"averageRuPerSecond", Hundredths(average_rate)},
        {"peakRuPerSecond", Hundredths(container_peak)},
        {"physicalPartitions", usage.partitions.size()},
        {"hottestPartitionPeakRuPerSecond", Hundredths(hottest_second)}}},
      {"provisioned", {{"ruPerSecond", manual}, {"monthlyUsd", Cents(manual_monthly)}}},
      {"autoscale",
       {{"maxRuPerSecond", autoscale_max},
        {"averageBilledRuPerSecond", Hundredths(average_billed)},
        {"busiestHourRuPerSecond", busiest_hour},
        {"monthlyUsd", Cents(autoscale_monthly)}}},
      {"serverless", {{"monthlyRequestUnits", std::round(monthly_rus)}, {"monthlyUsd", Cents(serverless_monthly)}}},
      {"storage", {{"gb", Hundredths(stored_gb)}, {"billedGb", Hundredths(billed_gb)}, {"monthlyUsd", Cents(storage_monthly)}}},
      {"cheapest", cheapest},
      {"autoscaleVersusProvisioned", Hundredths(autoscale_monthly / manual_monthly - 1)},
  };
}

}  // namespace cosmos::engine
