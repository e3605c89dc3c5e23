#include "engine/catalog/throughput.h"

#include <algorithm>

namespace cosmos::engine {

namespace {

int64_t RoundUp(int64_t value, int64_t step) { return (value + step - 1) / step * step; }

// The service's wording, with this resource's minimum; SDK tests match the second sentence.
Status BelowMinimum(const char* what, int64_t given, int64_t minimum, int64_t step) {
  std::string message = std::string("The offer should have valid ") + what + " values between " +
                        std::to_string(minimum) + " and 1000000 inclusive in increments of " + std::to_string(step) +
                        ".";
  if (given < minimum) {
    message += " Requested throughput " + std::to_string(given) + " is less than required minimum throughput " +
               std::to_string(minimum) + ".";
  } else {
    message += " Requested throughput " + std::to_string(given) + " is not valid.";
  }
  return Status::BadRequest(message);
}

}  // namespace

Result<int64_t> IncrementPercentOf(const Json& autopilot_settings) {
  auto policy = autopilot_settings.find("autoUpgradePolicy");
  if (policy == autopilot_settings.end() || policy->is_null()) return int64_t{0};
  const Json* percent = nullptr;
  if (policy->is_object()) {
    auto throughput_policy = policy->find("throughputPolicy");
    if (throughput_policy != policy->end() && throughput_policy->is_object()) {
      auto found = throughput_policy->find("incrementPercent");
      if (found != throughput_policy->end()) percent = &*found;
    }
  }
  if (percent == nullptr) return int64_t{0};
  if (!percent->is_number_integer() || percent->get<int64_t>() < 0) {
    return Status::BadRequest("autoUpgradePolicy.throughputPolicy.incrementPercent must be a non-negative integer.");
  }
  return percent->get<int64_t>();
}

int64_t MinimumThroughput(int64_t max_ever_provisioned) {
  return std::max(kMinimumManualThroughput, RoundUp(max_ever_provisioned / 100, 100));
}

int64_t MinimumAutoscaleMax(int64_t max_ever_provisioned) {
  return std::max(kMinimumAutoscaleMax, RoundUp(max_ever_provisioned / 10, 1000));
}

Status ValidateThroughput(const ContainerThroughput& throughput, int64_t max_ever_provisioned) {
  constexpr int64_t kMaximum = 1000000;
  if (throughput.autoscale_max != 0) {
    int64_t minimum = MinimumAutoscaleMax(max_ever_provisioned);
    if (throughput.autoscale_max < minimum || throughput.autoscale_max > kMaximum ||
        throughput.autoscale_max % 1000 != 0) {
      return BelowMinimum("autoscale maximum throughput", throughput.autoscale_max, minimum, 1000);
    }
    return Status();
  }
  int64_t minimum = MinimumThroughput(max_ever_provisioned);
  if (throughput.manual < minimum || throughput.manual > kMaximum || throughput.manual % 100 != 0) {
    return BelowMinimum("throughput", throughput.manual, minimum, 100);
  }
  return Status();
}

Json OfferBody(const OfferIdentity& identity, const ContainerThroughput& throughput, int64_t max_ever_provisioned,
               const std::string& etag, int64_t ts) {
  Json content = {{"offerThroughput", throughput.autoscale_max > 0 ? throughput.autoscale_max / 10 : throughput.manual},
                  {"offerIsRUPerMinuteThroughputEnabled", false},
                  {"offerMinimumThroughputParameters",
                   {{"maxThroughputEverProvisioned", max_ever_provisioned}, {"maxConsumedStorageEverInKB", 0}}}};
  if (throughput.autoscale_max > 0) {
    content["offerAutopilotSettings"] = {
        {"maxThroughput", throughput.autoscale_max},
        {"autoUpgradePolicy", {{"throughputPolicy", {{"incrementPercent", throughput.autoscale_increment_percent}}}}}};
  }
  return {{"resource", identity.resource_self},
          {"offerType", "Invalid"},
          {"offerResourceId", identity.resource_rid},
          {"offerVersion", "V2"},
          {"content", std::move(content)},
          {"id", identity.rid},
          {"_rid", identity.rid},
          {"_self", "offers/" + identity.rid + "/"},
          {"_etag", etag},
          {"_ts", ts}};
}

Result<ContainerThroughput> ThroughputOfOffer(const Json& offer) {
  auto content = offer.is_object() ? offer.find("content") : offer.end();
  if (content == offer.end() || !content->is_object()) {
    return Status::BadRequest("The offer needs a content object with offerThroughput or offerAutopilotSettings.");
  }
  ContainerThroughput throughput;
  if (auto autopilot = content->find("offerAutopilotSettings");
      autopilot != content->end() && autopilot->is_object() && autopilot->contains("maxThroughput")) {
    const Json& max = (*autopilot)["maxThroughput"];
    if (!max.is_number_integer()) return Status::BadRequest("offerAutopilotSettings.maxThroughput must be an integer.");
    throughput.autoscale_max = max.get<int64_t>();
    COSMOS_ASSIGN_OR_RETURN(throughput.autoscale_increment_percent, IncrementPercentOf(*autopilot));
    return throughput;
  }
  auto manual = content->find("offerThroughput");
  if (manual == content->end() || !manual->is_number_integer()) {
    return Status::BadRequest("The offer needs content.offerThroughput (an integer) or offerAutopilotSettings.");
  }
  throughput.manual = manual->get<int64_t>();
  return throughput;
}

Status CheckRequestedThroughput(const ContainerThroughput& throughput, bool serverless) {
  if (!throughput.given()) return Status();
  if (serverless) {
    return Status::BadRequest(
        "Setting offer throughput or autopilot on container is not supported for serverless accounts.");
  }
  return ValidateThroughput(throughput);
}

}  // namespace cosmos::engine
