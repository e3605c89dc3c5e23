// Offers: the throughput of a container (dedicated) or a database (shared by its containers), in
// the service's offer resource format (offerVersion V2), with the service's minimums.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "common/json.h"
#include "common/result.h"

namespace cosmos::engine {

// Throughput as a create request or an offer states it: manual RU/s, or autoscale with a maximum.
struct ContainerThroughput {
  int64_t manual = 0;         // RU/s; 0: not given
  int64_t autoscale_max = 0;  // RU/s; 0: not autoscale
  // Autoscale: offerAutopilotSettings.autoUpgradePolicy.throughputPolicy.incrementPercent, which the
  // service keeps and returns (it grows the maximum as storage grows; nothing here acts on it).
  int64_t autoscale_increment_percent = 0;

  // Any value given, valid or not (ValidateThroughput refuses a negative one).
  bool given() const { return manual != 0 || autoscale_max != 0; }
  // The RU/s the partitions may consume: autoscale scales up to its maximum instantly.
  int64_t ru_per_second() const { return autoscale_max > 0 ? autoscale_max : manual; }
};

inline constexpr int64_t kMinimumManualThroughput = 400;
inline constexpr int64_t kMinimumAutoscaleMax = 1000;
inline constexpr int64_t kDefaultContainerThroughput = 400;
// A serverless container may burst to this many RU/s.
inline constexpr int64_t kServerlessContainerThroughput = 5000;

// Checks a requested throughput against the service's rules, given the most RU/s the resource
// ever had (0 for a new one): manual at least max(400, a hundredth of that) in steps of 100;
// an autoscale maximum at least max(1,000, a tenth of that) in steps of 1,000.
Status ValidateThroughput(const ContainerThroughput& throughput, int64_t max_ever_provisioned = 0);
int64_t MinimumThroughput(int64_t max_ever_provisioned);
// offerAutopilotSettings' autoUpgradePolicy.throughputPolicy.incrementPercent (0 when absent).
Result<int64_t> IncrementPercentOf(const Json& autopilot_settings);
// Throughput asked for on a create: refused on a serverless account, else ValidateThroughput.
Status CheckRequestedThroughput(const ContainerThroughput& throughput, bool serverless);
int64_t MinimumAutoscaleMax(int64_t max_ever_provisioned);

// The offer resource for `resource_self` ("dbs/<rid>/" or "dbs/<rid>/colls/<rid>/").
struct OfferIdentity {
  std::string rid;           // the offer's own 4-character id
  std::string resource_self; // the database's or container's _self
  std::string resource_rid;  // the database's or container's _rid
};
Json OfferBody(const OfferIdentity& identity, const ContainerThroughput& throughput, int64_t max_ever_provisioned,
               const std::string& etag, int64_t ts);

// The throughput an offer body states (content.offerAutopilotSettings.maxThroughput, else
// content.offerThroughput). kBadRequest when the body states neither.
Result<ContainerThroughput> ThroughputOfOffer(const Json& offer);

}  // namespace cosmos::engine
