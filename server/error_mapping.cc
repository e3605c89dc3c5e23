#include "server/error_mapping.h"

#include "common/json.h"
#include "server/headers.h"

namespace cosmos::server {

HttpError MapError(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadRequest: return {400, 0, "BadRequest"};
    case ErrorCode::kPartitionKeyMismatch: return {400, 1001, "BadRequest"};
    case ErrorCode::kUnauthorized: return {401, 0, "Unauthorized"};
    case ErrorCode::kForbidden: return {403, 0, "Forbidden"};
    case ErrorCode::kAadOperationNotAllowed: return {403, 5300, "Forbidden"};
    case ErrorCode::kRbacPermissionMissing: return {403, 5301, "Forbidden"};
    case ErrorCode::kNotFound: return {404, 0, "NotFound"};
    case ErrorCode::kOwnerResourceNotFound: return {404, 1003, "NotFound"};
    case ErrorCode::kMethodNotAllowed: return {405, 0, "MethodNotAllowed"};
    case ErrorCode::kConflict: return {409, 0, "Conflict"};
    case ErrorCode::kPreconditionFailed: return {412, 0, "PreconditionFailed"};
    case ErrorCode::kRequestEntityTooLarge: return {413, 0, "RequestEntityTooLarge"};
    case ErrorCode::kUnsupportedMediaType: return {415, 0, "UnsupportedMediaType"};
    case ErrorCode::kQueryNeedsClientPlan: return {400, 1004, "BadRequest"};
    case ErrorCode::kLogicalPartitionFull: return {403, 1014, "Forbidden"};
    case ErrorCode::kPartitionKeyRangeGone: return {410, 1002, "Gone"};
    case ErrorCode::kRequestRateTooLarge: return {429, 3200, "TooManyRequests"};
    case ErrorCode::kIncorrectContainerRid: return {400, 1024, "BadRequest"};
    case ErrorCode::kInsufficientStorage: return {507, 0, "InsufficientStorage"};
    case ErrorCode::kRequestTimeout: return {408, 0, "RequestTimeout"};
    case ErrorCode::kServiceUnavailable: return {503, 0, "ServiceUnavailable"};
    case ErrorCode::kOk:  // a success is never an error answer; treat as a bug
    case ErrorCode::kInternal: return {500, 0, "InternalServerError"};
  }
  return {500, 0, "InternalServerError"};
}

HttpResponse ErrorResponse(const Status& status, const std::string& activity_id) {
  HttpError error = MapError(status.code());
  HttpResponse response;
  response.status = error.status;
  if (status.substatus() != 0) error.substatus = status.substatus();
  if (error.substatus != 0) response.AddHeader(headers::kSubstatus, std::to_string(error.substatus));
  if (status.code() == ErrorCode::kRequestRateTooLarge) {
    response.AddHeader(headers::kRetryAfterMs, std::to_string(status.retry_after_ms()));
  }
  Json body = {{"code", error.code}, {"message", status.message() + "\r\nActivityId: " + activity_id}};
  if (!status.additional_error_info().empty()) body["additionalErrorInfo"] = status.additional_error_info();
  // Messages quote what the request sent, which need not be UTF-8 (a path, a header): such bytes
  // become U+FFFD rather than an exception.
  response.body = body.dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
  return response;
}

}  // namespace cosmos::server
