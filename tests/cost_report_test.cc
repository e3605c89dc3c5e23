#include "engine/admission/cost_report.h"

#include "tests/test_support.h"

namespace cosmos::engine {
namespace {

// One partition's seconds from `first`: `rates[i]` RU in second first + i (zero: no activity).
std::vector<SecondOfUsage> Seconds(int64_t first, const std::vector<double>& rates) {
  std::vector<SecondOfUsage> seconds;
  for (size_t i = 0; i < rates.size(); ++i) {
    if (rates[i] > 0) seconds.push_back({first + static_cast<int64_t>(i), rates[i]});
  }
  return seconds;
}

CostWindow Compressed() {
  CostWindow window;
  window.hour_seconds = 1;  // each second billed as an hour
  return window;
}

}  // namespace

TEST_CASE("cost report: a spiky day is cheaper on autoscale, at the documented rates", "[cost_report]") {
  // 24 hours: 1,200 RU/s for 4 hours, 120 RU/s for the other 20, on one physical partition.
  std::vector<double> day(24, 120);
  for (int hour : {8, 9, 18, 19}) day[hour] = 1200;
  ContainerUsage usage{{Seconds(1000, day)}, 0};
  Json cost = EstimateMonthlyCost(usage, Compressed(), ListPrices{});
  // Provisioned at the peak: 1,200 RU/s × $0.008 per 100 per hour × 730 hours.
  CHECK(cost["provisioned"]["ruPerSecond"] == 1200);
  CHECK(cost["provisioned"]["monthlyUsd"].get<double>() == Approx(70.08));
  // Autoscale: Tmax 2,000; 20 hours at the floor of 200, 4 at 1,200: 366.67 RU/s on average at $0.012.
  CHECK(cost["autoscale"]["maxRuPerSecond"] == 2000);
  CHECK(cost["autoscale"]["averageBilledRuPerSecond"].get<double>() == Approx(366.67).margin(0.01));
  CHECK(cost["autoscale"]["monthlyUsd"].get<double>() == Approx(32.12));
  // Serverless: 300 RU/s on average for 730 hours at $0.25 per million.
  CHECK(cost["serverless"]["monthlyRequestUnits"].get<double>() == Approx(300.0 * 730 * 3600));
  CHECK(cost["serverless"]["monthlyUsd"].get<double>() == Approx(197.1));
  CHECK(cost["cheapest"] == "autoscale");
  CHECK(cost["autoscaleVersusProvisioned"].get<double>() == Approx(-0.54));
  CHECK(cost["storage"]["monthlyUsd"] == 0);
}

TEST_CASE("cost report: a steady load is cheaper provisioned; an idle one serverless", "[cost_report]") {
  ContainerUsage steady{{Seconds(0, std::vector<double>(24, 600))}, 0};
  Json cost = EstimateMonthlyCost(steady, Compressed(), ListPrices{});
  CHECK(cost["provisioned"]["ruPerSecond"] == 600);
  CHECK(cost["autoscale"]["averageBilledRuPerSecond"] == 600);
  CHECK(cost["cheapest"] == "provisioned");
  CHECK(cost["autoscaleVersusProvisioned"].get<double>() == Approx(0.5));

  std::vector<double> occasional(24, 0);
  occasional[10] = 150;
  ContainerUsage idle{{Seconds(0, occasional)}, 0};
  CostWindow day = Compressed();
  day.from_second = 0;
  day.to_second = 23;  // the idle hours count: the window is the whole day
  Json idle_cost = EstimateMonthlyCost(idle, day, ListPrices{});
  CHECK(idle_cost["observed"]["billingHours"] == 24);
  CHECK(idle_cost["provisioned"]["ruPerSecond"] == 400);  // the minimum
  CHECK(idle_cost["cheapest"] == "serverless");
}

TEST_CASE("cost report: the hottest partition sets what provisioned throughput needs", "[cost_report]") {
  // Four partitions; one takes 400 RU in a second while the others take 100: the even split
  // means every partition needs 400, so the container needs 1,600 RU/s for 700 RU/s of work.
  ContainerUsage usage{{Seconds(0, {400}), Seconds(0, {100}), Seconds(0, {100}), Seconds(0, {100})}, 0};
  Json cost = EstimateMonthlyCost(usage, Compressed(), ListPrices{});
  CHECK(cost["observed"]["peakRuPerSecond"] == 700);
  CHECK(cost["observed"]["hottestPartitionPeakRuPerSecond"] == 400);
  CHECK(cost["provisioned"]["ruPerSecond"] == 1600);
  // Autoscale scales each partition on its own within [Tmax/N/10, Tmax/N]: Tmax 2,000, so each
  // partition's floor is 50 and the hour is billed at what each reached, 400 + 3 × 100.
  CHECK(cost["autoscale"]["maxRuPerSecond"] == 2000);
  CHECK(cost["autoscale"]["busiestHourRuPerSecond"] == 700);
  // Idle partitions are billed at their floor: 400 + 3 × 50, in steps of 100.
  ContainerUsage one_busy{{Seconds(0, {400}), {}, {}, {}}, 0};
  CHECK(EstimateMonthlyCost(one_busy, Compressed(), ListPrices{})["autoscale"]["busiestHourRuPerSecond"] == 600);
}

TEST_CASE("cost report: real hours, storage, and no activity", "[cost_report]") {
  // Two minutes of a run at 100 RU/s, billed in real hours: one billing hour.
  ContainerUsage usage{{Seconds(0, std::vector<double>(120, 100))}, int64_t{3} * 1024 * 1024 * 1024};
  Json cost = EstimateMonthlyCost(usage, CostWindow{}, ListPrices{});
  CHECK(cost["observed"]["billingHours"] == 1);
  CHECK(cost["observed"]["seconds"] == 120);
  CHECK(cost["storage"]["gb"] == 3);
  CHECK(cost["storage"]["monthlyUsd"] == 0.75);
  // A container with anything stored is billed at least 1 GB.
  ContainerUsage small{{Seconds(0, {10})}, 1000};
  CHECK(EstimateMonthlyCost(small, CostWindow{}, ListPrices{})["storage"]["billedGb"] == 1);
  ContainerUsage none{{{}}, 0};
  CHECK(EstimateMonthlyCost(none, CostWindow{}, ListPrices{})["observed"]["requestUnits"] == 0);
}

TEST_CASE("cost report: list prices are overridden by name, and bad entries are refused", "[cost_report]") {
  auto prices = ParseListPrices("provisioned=0.01,serverless=0.3");
  REQUIRE(prices.ok());
  CHECK(prices->provisioned_per_100_rus_hour == 0.01);
  CHECK(prices->autoscale_per_100_rus_hour == 0.012);
  CHECK(prices->serverless_per_million_rus == 0.3);
  for (const char* bad : {"provisioned", "provisioned=-1", "egress=0.1", "autoscale=1x", "storage=nan"}) {
    CAPTURE(bad);
    auto refused = ParseListPrices(bad);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().code() == ErrorCode::kBadRequest);
  }
}

}  // namespace cosmos::engine
