// Status: the outcome of an operation that can fail, as an error code and a message.
// The code names a Cosmos DB error condition; server/error_mapping.cc is the only place that
// turns a code into an HTTP status and substatus.
// Thread-safety: a Status is an immutable value; share copies freely.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace cosmos {

// Every failure the emulator can report. Keep server/error_mapping.cc exhaustive over this list.
enum class ErrorCode {
  kOk,
  kBadRequest,             // malformed input: JSON, headers, ids, definitions
  kPartitionKeyMismatch,   // the partition key header disagrees with the document
  kUnauthorized,           // missing, malformed or wrong authorization header
  kForbidden,              // a valid signature whose date is out of range; a resource token out of its scope
  kAadOperationNotAllowed, // an Entra ID token on a management operation (403/5300)
  kRbacPermissionMissing,  // an Entra ID principal whose data-plane role lacks the action (403/5301)
  kNotFound,               // the addressed resource does not exist
  kOwnerResourceNotFound,  // the database or container that owns it does not exist
  kMethodNotAllowed,       // a verb the resource does not support
  kConflict,               // an id or unique key that already exists
  kPreconditionFailed,     // If-Match did not match the current etag
  kRequestEntityTooLarge,  // a document or request over the size limit
  kUnsupportedMediaType,   // a content type the operation does not accept
  kQueryNeedsClientPlan,   // a cross-partition query the gateway cannot serve alone (400/1004)
  kLogicalPartitionFull,   // a write past the logical partition size cap (403/1014)
  kPartitionKeyRangeGone,  // a request names a partition key range that was split (410/1002)
  kRequestRateTooLarge,    // the partition's throughput budget is spent (429/3200); nothing changed
  kIncorrectContainerRid,  // the container was re-created since the client resolved its name (400/1024)
  kInsufficientStorage,    // the disk under the data file is full (507); nothing was written
  kRequestTimeout,         // work that could not end its page in time was abandoned (408)
  kServiceUnavailable,     // the server is shutting down; the request was abandoned (503)
  kInternal,               // a bug or an I/O failure; logged with the activity id
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // success

  static Status BadRequest(std::string message) { return {ErrorCode::kBadRequest, std::move(message)}; }
  static Status PartitionKeyMismatch(std::string message) {
    return {ErrorCode::kPartitionKeyMismatch, std::move(message)};
  }
  static Status Unauthorized(std::string message) { return {ErrorCode::kUnauthorized, std::move(message)}; }
  static Status Forbidden(std::string message) { return {ErrorCode::kForbidden, std::move(message)}; }
  static Status AadOperationNotAllowed(std::string message) {
    return {ErrorCode::kAadOperationNotAllowed, std::move(message)};
  }
  static Status RbacPermissionMissing(std::string message) {
    return {ErrorCode::kRbacPermissionMissing, std::move(message)};
  }
  static Status NotFound(std::string message) { return {ErrorCode::kNotFound, std::move(message)}; }
  static Status OwnerResourceNotFound(std::string message) {
    return {ErrorCode::kOwnerResourceNotFound, std::move(message)};
  }
  static Status MethodNotAllowed(std::string message) {
    return {ErrorCode::kMethodNotAllowed, std::move(message)};
  }
  static Status Conflict(std::string message) { return {ErrorCode::kConflict, std::move(message)}; }
  static Status IncorrectContainerRid(std::string message) {
    return {ErrorCode::kIncorrectContainerRid, std::move(message)};
  }
  static Status PreconditionFailed(std::string message) {
    return {ErrorCode::kPreconditionFailed, std::move(message)};
  }
  static Status RequestEntityTooLarge(std::string message) {
    return {ErrorCode::kRequestEntityTooLarge, std::move(message)};
  }
  static Status UnsupportedMediaType(std::string message) {
    return {ErrorCode::kUnsupportedMediaType, std::move(message)};
  }
  // `plan` is the query plan JSON the SDK needs; it travels as the body's additionalErrorInfo.
  static Status QueryNeedsClientPlan(std::string message, std::string plan) {
    Status status{ErrorCode::kQueryNeedsClientPlan, std::move(message)};
    status.additional_error_info_ = std::move(plan);
    return status;
  }
  // A script (stored procedure or trigger) that failed: 400, with x-ms-substatus the number of the
  // error it threw (`new Error(404, "…")`, or a collection call's error it passed on); 0: none.
  static Status ScriptFailed(std::string message, int error_number) {
    Status status{ErrorCode::kBadRequest, std::move(message)};
    status.substatus_ = error_number;
    return status;
  }
  static Status LogicalPartitionFull(std::string message) {
    return {ErrorCode::kLogicalPartitionFull, std::move(message)};
  }
  static Status PartitionKeyRangeGone(std::string message) {
    return {ErrorCode::kPartitionKeyRangeGone, std::move(message)};
  }
  // `retry_after_ms`: when the budget will allow the request again (x-ms-retry-after-ms).
  static Status RequestRateTooLarge(std::string message, int64_t retry_after_ms) {
    Status status{ErrorCode::kRequestRateTooLarge, std::move(message)};
    status.retry_after_ms_ = retry_after_ms;
    return status;
  }
  static Status InsufficientStorage(std::string message) {
    return {ErrorCode::kInsufficientStorage, std::move(message)};
  }
  static Status RequestTimeout(std::string message) { return {ErrorCode::kRequestTimeout, std::move(message)}; }
  static Status ServiceUnavailable(std::string message) {
    return {ErrorCode::kServiceUnavailable, std::move(message)};
  }
  static Status Internal(std::string message) { return {ErrorCode::kInternal, std::move(message)}; }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // Extra machine-readable detail for the error body ("additionalErrorInfo"); usually empty.
  const std::string& additional_error_info() const { return additional_error_info_; }
  // For kRequestRateTooLarge: milliseconds the client should wait before retrying.
  int64_t retry_after_ms() const { return retry_after_ms_; }
  // An x-ms-substatus the error carries itself (ScriptFailed), in place of its code's; 0: none.
  int substatus() const { return substatus_; }

 private:
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
  std::string additional_error_info_;
  int64_t retry_after_ms_ = 0;
  int substatus_ = 0;
};

}  // namespace cosmos
