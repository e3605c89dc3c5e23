#include "engine/shared/feeds.h"

#include <algorithm>
#include <charconv>

#include "common/json.h"

namespace cosmos::engine {

std::string QuotedNumber(int64_t number) {
  std::string etag = "\"";  // built in steps: g++ 12 misreports "lit" + string under -Werror=restrict
  etag += std::to_string(number);
  etag += '"';
  return etag;
}

int64_t PageSize(int64_t max_item_count) {
  if (max_item_count > 0) return std::min(max_item_count, kMaxPageItems);
  return max_item_count == -1 ? kMaxPageItems : kDefaultPageItems;
}

Result<int64_t> SeqContinuation(const std::optional<std::string>& continuation) {
  if (!continuation || continuation->empty()) return int64_t{0};
  int64_t seq = 0;
  auto [end, error] = std::from_chars(continuation->data(), continuation->data() + continuation->size(), seq);
  if (error != std::errc() || end != continuation->data() + continuation->size() || seq < 0) {
    return Status::BadRequest("Invalid Continuation Token: '" + *continuation + "' is malformed.");
  }
  return seq;
}

std::string FeedBody(const std::string& owner_rid, const char* key,
                     const std::vector<std::string>& bodies) {
  size_t total = 64 + owner_rid.size();
  for (const std::string& body : bodies) total += body.size() + 1;
  std::string out;
  out.reserve(total);
  out += "{\"_rid\":";
  out += Json(owner_rid).dump();
  out += ",\"";
  out += key;
  out += "\":[";
  for (size_t index = 0; index < bodies.size(); ++index) {
    if (index > 0) out += ',';
    out += bodies[index];
  }
  out += "],\"_count\":";
  out += std::to_string(bodies.size());
  out += '}';
  return out;
}

}  // namespace cosmos::engine
