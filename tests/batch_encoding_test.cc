#include "server/response_building.h"

#include "common/json.h"
#include "tests/test_support.h"

namespace cosmos::server {

TEST_CASE("batch answers: one result per operation, 207 when any failed", "[batch]") {
  engine::BatchResponse batch;
  batch.results.resize(3);
  batch.results[0].success_status = 201;
  batch.results[0].response.body = R"({"id":"a","pk":"p"})";
  batch.results[0].response.etag = "\"e1\"";
  batch.results[0].response.request_charge = 5.5;
  batch.results[1].status = Status::PartitionKeyMismatch("mismatch");
  batch.results[2].not_attempted = true;
  batch.request_charge = 5.5;
  batch.lsn = 7;

  HttpResponse response = FromBatch(batch, /*minimal=*/false);
  CHECK(response.status == 207);
  Json results = Json::parse(response.body);
  REQUIRE(results.size() == 3);
  CHECK(results[0] == Json::parse(R"({"statusCode":201,"requestCharge":5.5,"eTag":"\"e1\"","resourceBody":{"id":"a","pk":"p"}})"));
  CHECK(results[1] == Json::parse(R"({"statusCode":400,"subStatusCode":1001,"requestCharge":0.0})"));
  CHECK(results[2] == Json::parse(R"({"statusCode":424,"requestCharge":0.0})"));
  REQUIRE(response.FindHeader("x-ms-request-charge"));
  CHECK(*response.FindHeader("x-ms-request-charge") == "5.50");

  batch.results.resize(1);
  HttpResponse applied = FromBatch(batch, /*minimal=*/true);
  CHECK(applied.status == 200);
  CHECK_FALSE(Json::parse(applied.body)[0].contains("resourceBody"));

  engine::BatchResponse throttled;
  throttled.results.resize(1);
  throttled.results[0].status = Status::RequestRateTooLarge("busy", 25);
  Json throttled_result = Json::parse(FromBatch(throttled, false).body)[0];
  CHECK(throttled_result["statusCode"] == 429);
  CHECK(throttled_result["subStatusCode"] == 3200);
  CHECK(throttled_result["retryAfterMilliseconds"] == 25);
}

}  // namespace cosmos::server
