#include "engine/admission/request_charge.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace cosmos::engine {
namespace {

// The model's constants; docs/request-units.md gives the published figure behind each.
constexpr double kReadFirstKilobyte = 1.0;       // point read of a 1 KB item
constexpr double kReadPerExtraKilobyte = 9.0 / 99.0;   // 100 KB read = 10 RU
constexpr double kWriteFirstKilobyte = 4.2;      // storing a 1 KB item, before indexing
constexpr double kWritePerExtraKilobyte = 45.0 / 99.0; // 100 KB write = 50 RU more or less
constexpr double kIndexTerm = 0.06;              // adding or removing one index term
constexpr double kStrongReadFactor = 2.0;        // Strong and Bounded Staleness reads
// Queries: fitted to the published charges of small lookups, IN lists, full scans and index-only
// aggregates (docs/request-units.md, "Calibration").
constexpr double kQueryBase = 2.3;               // the smallest query page, per physical partition
constexpr double kQueryIndexUse = 0.35;          // a page that reads the index at all
constexpr double kQueryPerSeek = 0.1;            // each value or range looked up
constexpr double kQueryPerIndexEntry = 0.0002;
constexpr double kQueryPerDocument = 0.005;      // loaded and evaluated
constexpr double kQueryPerLoadedKilobyte = 0.0093;
constexpr double kQueryPerRow = 0.02;            // returned
constexpr double kQueryPerOutputKilobyte = 0.033;
constexpr double kQueryPerExpression = 0.0002;
constexpr double kQueryPerFunctionWork = 0.002;

double RoundToHundredths(double value) { return std::round(value * 100.0) / 100.0; }

double Kilobytes(size_t bytes) { return static_cast<double>(bytes) / 1024.0; }

double ExtraKilobytes(size_t bytes) { return std::max(0.0, Kilobytes(bytes) - 1.0); }

double StorageWrite(size_t bytes) { return kWriteFirstKilobyte + kWritePerExtraKilobyte * ExtraKilobytes(bytes); }

double ConsistencyFactor(ConsistencyLevel level) {
  return level == ConsistencyLevel::kStrong || level == ConsistencyLevel::kBoundedStaleness ? kStrongReadFactor : 1.0;
}

}  // namespace

std::optional<ConsistencyLevel> ParseConsistencyLevel(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "strong") return ConsistencyLevel::kStrong;
  if (lower == "boundedstaleness") return ConsistencyLevel::kBoundedStaleness;
  if (lower == "session") return ConsistencyLevel::kSession;
  if (lower == "consistentprefix") return ConsistencyLevel::kConsistentPrefix;
  if (lower == "eventual") return ConsistencyLevel::kEventual;
  return std::nullopt;
}

const char* ConsistencyLevelName(ConsistencyLevel level) {
  switch (level) {
    case ConsistencyLevel::kStrong: return "Strong";
    case ConsistencyLevel::kBoundedStaleness: return "BoundedStaleness";
    case ConsistencyLevel::kSession: return "Session";
    case ConsistencyLevel::kConsistentPrefix: return "ConsistentPrefix";
    case ConsistencyLevel::kEventual: return "Eventual";
  }
  return "Session";
}

Result<ConsistencyLevel> ReadConsistency(ConsistencyLevel account_default, const std::optional<std::string>& header) {
  if (!header) return account_default;
  std::optional<ConsistencyLevel> requested = ParseConsistencyLevel(*header);
  if (!requested) return Status::BadRequest("Invalid value '" + *header + "' for the x-ms-consistency-level header.");
  if (*requested < account_default) {
    std::string message = "ConsistencyLevel ";
    message += ConsistencyLevelName(*requested);
    message += " specified in the request is invalid when service is configured with consistency level ";
    message += ConsistencyLevelName(account_default);
    message += ". Ensure the request consistency level is not stronger than the service consistency level.";
    return Status::BadRequest(message);
  }
  return *requested;
}

double ReadCharge(size_t bytes, ConsistencyLevel level) {
  return RoundToHundredths((kReadFirstKilobyte + kReadPerExtraKilobyte * ExtraKilobytes(bytes)) *
                           ConsistencyFactor(level));
}

double CreateCharge(size_t bytes, int64_t index_terms) {
  return RoundToHundredths(StorageWrite(bytes) + kIndexTerm * static_cast<double>(index_terms));
}

double ReplaceCharge(size_t bytes, int64_t index_terms, int64_t old_index_terms) {
  // The old version is retired and the new one stored: two storage writes.
  return RoundToHundredths(2 * StorageWrite(bytes) +
                           kIndexTerm * static_cast<double>(index_terms + old_index_terms));
}

double DeleteCharge(size_t bytes, int64_t index_terms) {
  return RoundToHundredths(StorageWrite(bytes) + kIndexTerm * static_cast<double>(index_terms));
}

double MetadataReadCharge() { return 1.0; }

double MetadataWriteCharge() { return 5.0; }

double QueryCharge(const QueryWork& work, ConsistencyLevel level) {
  double index_use = work.index_seeks > 0 || work.index_entries > 0 ? kQueryIndexUse : 0.0;
  double charge = kQueryBase * static_cast<double>(std::max<uint64_t>(1, work.partitions_visited)) + index_use +
                  kQueryPerSeek * static_cast<double>(work.index_seeks) +
                  kQueryPerRow * static_cast<double>(work.rows_returned) +
                  kQueryPerDocument * static_cast<double>(work.documents_loaded) +
                  kQueryPerLoadedKilobyte * Kilobytes(work.document_bytes) +
                  kQueryPerOutputKilobyte * Kilobytes(work.output_bytes) +
                  kQueryPerExpression * static_cast<double>(work.expressions) +
                  kQueryPerFunctionWork * static_cast<double>(work.function_work) +
                  kQueryPerIndexEntry * static_cast<double>(work.index_entries);
  return RoundToHundredths(charge * ConsistencyFactor(level));
}

double ScriptCharge(std::chrono::microseconds elapsed) {
  constexpr double kScriptBase = 2.0;             // the smallest run, as the smallest query page
  constexpr double kScriptPerMillisecond = 0.5;   // running time, until document work is counted
  return RoundToHundredths(kScriptBase + kScriptPerMillisecond * static_cast<double>(elapsed.count()) / 1000.0);
}

double FailedRequestCharge() { return 1.0; }

bool IsChargedFailure(ErrorCode code) {
  return code != ErrorCode::kUnauthorized && code != ErrorCode::kForbidden &&
         code != ErrorCode::kAadOperationNotAllowed && code != ErrorCode::kRbacPermissionMissing &&
         code != ErrorCode::kRequestRateTooLarge;
}

}  // namespace cosmos::engine
