// Master-key signing of Cosmos DB REST requests, as the SDKs do it, for the benchmark client:
// authorization = URL-encode("type=master&ver=1.0&sig=" +
//   base64(HMAC-SHA256(key, lower(verb)\nresourceType\nresourceLink\nlower(date)\n\n))).
// Thread-safety: MasterKeySigner is immutable once created and may be shared by threads;
// DateClock is not thread-safe (keep one per thread).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cosmos::bench {

std::string Base64Encode(const uint8_t* data, size_t size);
// Returns nullopt for text that is not padded base64.
std::optional<std::vector<uint8_t>> Base64Decode(std::string_view text);

// Percent-encodes everything but RFC 3986 unreserved characters (like encodeURIComponent).
std::string UrlEncode(std::string_view text);

// RFC 1123 date in GMT, e.g. "Wed, 02 Dec 2026 11:00:00 GMT".
std::string HttpDate(std::chrono::system_clock::time_point time);

// The current x-ms-date, recomputed at most once per second.
class DateClock {
 public:
  const std::string& Now();

 private:
  int64_t second_ = -1;
  std::string text_;
};

class MasterKeySigner {
 public:
  // Returns nullopt when `base64_key` is not valid base64.
  static std::optional<MasterKeySigner> Create(std::string_view base64_key);

  // The authorization header value for one request. `verb` in any case (e.g. "POST"),
  // `resource_type` e.g. "docs", `resource_link` e.g. "dbs/bench/colls/c".
  std::string Authorization(std::string_view verb, std::string_view resource_type,
                            std::string_view resource_link, std::string_view date) const;

 private:
  explicit MasterKeySigner(std::vector<uint8_t> key) : key_(std::move(key)) {}
  std::vector<uint8_t> key_;
};

}  // namespace cosmos::bench
