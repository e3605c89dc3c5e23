// MasterKeyAuth: verifies the master-key HMAC-SHA256 signature on a Cosmos request, as the
// REST reference defines it: authorization = URL-encoded "type=master&ver=1.0&sig=<base64>",
// signed over "verb\nresourcetype\nresourcelink\nx-ms-date\ndate\n" (lowercased except the link).
// Thread-safety: immutable after construction; Verify may run on many threads at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "server/http_message.h"

namespace cosmos::server {

// Parses an RFC 1123 date ("Tue, 01 Nov 1994 08:12:31 GMT") into seconds since the epoch.
std::optional<int64_t> ParseHttpDate(std::string_view text);
// Formats seconds since the epoch as an RFC 1123 date.
std::string FormatHttpDate(int64_t epoch_seconds);

// The three fields of an authorization header, "type=<type>&ver=<version>&sig=<signature>",
// URL-decoded; nullopt when it is not URL-encoded text of that shape.
struct AuthorizationFields {
  std::string type;
  std::string version;
  std::string signature;
};
std::optional<AuthorizationFields> ParseAuthorization(std::string_view header);

// What logs say instead of a key: "sha256:" and the first 12 hex digits of its SHA-256, enough to
// tell two keys apart, useless for signing.
std::string KeyFingerprint(std::string_view key);

class MasterKeyAuth {
 public:
  // The allowed difference between the request's date and the server clock.
  static constexpr int64_t kAllowedClockSkewSeconds = 15 * 60;

  // Returns kBadRequest if `master_key` is not base64.
  static Result<MasterKeyAuth> Create(std::string_view master_key);
  MasterKeyAuth(MasterKeyAuth&&) noexcept;
  MasterKeyAuth& operator=(MasterKeyAuth&&) noexcept;
  ~MasterKeyAuth();

  // The string the signature covers.
  static std::string StringToSign(std::string_view verb, std::string_view resource_type,
                                  std::string_view resource_link, std::string_view ms_date,
                                  std::string_view date);
  std::string Sign(std::string_view string_to_sign) const;

  // What a key signs a fixed message to: equal for equal keys, useless for signing; nullopt when
  // `key` is not base64. A caller checking one candidate against several keys derives it once and
  // asks each key MatchesProbe (constant time).
  static std::optional<std::string> KeyProbe(std::string_view key);
  bool MatchesProbe(std::string_view probe) const;

  // Checks the request's authorization header. Returns kUnauthorized when it is missing,
  // malformed or signed wrongly (the message quotes the string-to-sign the server used), and
  // kForbidden when the date is more than 15 minutes from `now_seconds`.
  Status Verify(const HttpRequest& request, std::string_view resource_type,
                std::string_view resource_link, int64_t now_seconds) const;
  // The same with the header already parsed (`fields`: ParseAuthorization of it, nullopt when it
  // is missing or malformed), so that a caller trying several keys parses it once.
  Status Verify(const HttpRequest& request, const std::optional<AuthorizationFields>& fields,
                std::string_view resource_type, std::string_view resource_link, int64_t now_seconds) const;

 private:
  struct HmacState;
  explicit MasterKeyAuth(std::unique_ptr<HmacState> state);

  // HMAC-SHA256 with the key's inner and outer pads already hashed, so that signing a request
  // costs two short digests instead of a key setup.
  std::unique_ptr<HmacState> state_;
};

}  // namespace cosmos::server
