#include "engine/items/time_to_live.h"

#include <string>
#include <vector>

#include "common/json_scan.h"

namespace cosmos::engine {

std::optional<int64_t> DefaultTtlOf(const Json& properties) {
  auto ttl = properties.find("defaultTtl");
  if (ttl == properties.end() || !ttl->is_number_integer()) return std::nullopt;
  return ttl->get<int64_t>();
}

Result<int64_t> ExpiresAt(const std::optional<int64_t>& default_ttl, const Json& document, int64_t ts) {
  if (!default_ttl) return int64_t{0};
  int64_t ttl = *default_ttl;
  // Stored documents carry no system-written null ttl, so a null here came from the writer, and
  // the service refuses it like any other value that is neither -1 nor a positive int32.
  if (auto own = document.find("ttl"); own != document.end()) {
    bool valid = own->is_number_integer() && (own->get<int64_t>() == -1 ||
                                              (own->get<int64_t>() > 0 && own->get<int64_t>() <= 2147483647));
    if (!valid) {
      return Status::BadRequest("The input ttl '" + own->dump() +
                                "' is invalid. Ensure to provide a nonzero positive integer less than or equal to "
                                "'2147483647', or '-1' which means never expire.");
    }
    ttl = own->get<int64_t>();
  }
  return ttl > 0 ? ts + ttl : 0;
}

Status RecomputeExpiries(storage::Transaction& txn, int64_t container_seq, const std::optional<int64_t>& default_ttl) {
  static const std::vector<std::string> kTimeProperties = {"ttl", "_ts"};
  int64_t after_seq = 0;
  for (;;) {
    COSMOS_ASSIGN_OR_RETURN(auto batch,
                            txn.ListDocuments(container_seq, storage::DocumentScope::All(), after_seq + 1, 1));
    if (batch.empty()) return Status();
    const storage::DocumentRecord* next = &batch.front();
    after_seq = next->seq;
    Json times = ParseSelectedProperties(next->body, kTimeProperties);
    int64_t ts = times.contains("_ts") && times["_ts"].is_number_integer() ? times["_ts"].get<int64_t>() : 0;
    Result<int64_t> expires = ExpiresAt(default_ttl, times, ts);
    int64_t expires_at = expires.ok() ? *expires : (default_ttl && *default_ttl > 0 ? ts + *default_ttl : 0);
    if (expires_at != next->expires_at) {
      COSMOS_RETURN_IF_ERROR(txn.SetDocumentExpiry(container_seq, next->seq, expires_at));
    }
  }
}

}  // namespace cosmos::engine
