#include "server/error_mapping.h"

#include "common/json.h"
#include "tests/test_support.h"

using cosmos::ErrorCode;
using cosmos::Status;
using cosmos::server::ErrorResponse;
using cosmos::server::MapError;

TEST_CASE("every error code maps to its Cosmos status and substatus", "[errors]") {
  struct Case {
    Status status;
    int http;
    int substatus;
    const char* code;
  };
  const Case cases[] = {
      {Status::BadRequest("m"), 400, 0, "BadRequest"},
      {Status::PartitionKeyMismatch("m"), 400, 1001, "BadRequest"},
      {Status::Unauthorized("m"), 401, 0, "Unauthorized"},
      {Status::Forbidden("m"), 403, 0, "Forbidden"},
      {Status::AadOperationNotAllowed("m"), 403, 5300, "Forbidden"},
      {Status::RbacPermissionMissing("m"), 403, 5301, "Forbidden"},
      {Status::NotFound("m"), 404, 0, "NotFound"},
      {Status::OwnerResourceNotFound("m"), 404, 1003, "NotFound"},
      {Status::MethodNotAllowed("m"), 405, 0, "MethodNotAllowed"},
      {Status::Conflict("m"), 409, 0, "Conflict"},
      {Status::PreconditionFailed("m"), 412, 0, "PreconditionFailed"},
      {Status::RequestEntityTooLarge("m"), 413, 0, "RequestEntityTooLarge"},
      {Status::UnsupportedMediaType("m"), 415, 0, "UnsupportedMediaType"},
      {Status::QueryNeedsClientPlan("m", "{}"), 400, 1004, "BadRequest"},
      {Status::LogicalPartitionFull("m"), 403, 1014, "Forbidden"},
      {Status::PartitionKeyRangeGone("m"), 410, 1002, "Gone"},
      {Status::RequestRateTooLarge("m", 250), 429, 3200, "TooManyRequests"},
      {Status::IncorrectContainerRid("m"), 400, 1024, "BadRequest"},
      {Status::InsufficientStorage("m"), 507, 0, "InsufficientStorage"},
      {Status::RequestTimeout("m"), 408, 0, "RequestTimeout"},
      {Status::ServiceUnavailable("m"), 503, 0, "ServiceUnavailable"},
      {Status::Internal("m"), 500, 0, "InternalServerError"},
  };
  // The table covers every code but kOk; a new ErrorCode must be added here.
  CHECK(std::size(cases) == static_cast<size_t>(ErrorCode::kInternal));
  for (const Case& c : cases) {
    auto error = MapError(c.status.code());
    INFO(c.code);
    CHECK(error.status == c.http);
    CHECK(error.substatus == c.substatus);
    CHECK(std::string(error.code) == c.code);

    auto response = ErrorResponse(c.status, "activity-1");
    CHECK(response.status == c.http);
    auto substatus = response.FindHeader("x-ms-substatus");
    if (c.substatus == 0) {
      CHECK_FALSE(substatus);
    } else {
      REQUIRE(substatus);
      CHECK(*substatus == std::to_string(c.substatus));
    }
    auto body = cosmos::Json::parse(response.body);
    CHECK(body["code"] == c.code);
    CHECK(body["message"] == "m\r\nActivityId: activity-1");
  }
}

TEST_CASE("a query that needs the client's plan carries it as additionalErrorInfo", "[errors]") {
  auto response = ErrorResponse(Status::QueryNeedsClientPlan("m", "{\"queryInfo\":{}}"), "a");
  auto body = cosmos::Json::parse(response.body);
  CHECK(body["additionalErrorInfo"] == "{\"queryInfo\":{}}");
}

TEST_CASE("a throttled request tells the client when to retry", "[errors]") {
  auto response = ErrorResponse(Status::RequestRateTooLarge("m", 250), "a");
  auto retry_after = response.FindHeader("x-ms-retry-after-ms");
  REQUIRE(retry_after);
  CHECK(*retry_after == "250");
  CHECK_FALSE(ErrorResponse(Status::BadRequest("m"), "a").FindHeader("x-ms-retry-after-ms"));
}

TEST_CASE("a message quoting bytes that are not UTF-8 still makes a JSON error body", "[errors]") {
  auto response = ErrorResponse(Status::NotFound("The resource '\xFF\xFE' does not exist."), "activity-\xC3\x28");
  CHECK(response.status == 404);
  cosmos::Json body = cosmos::Json::parse(response.body);
  CHECK(body["message"].get<std::string>().find("\xEF\xBF\xBD") != std::string::npos);  // U+FFFD
}
