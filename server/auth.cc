#include "server/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>

#include "common/encoding.h"
#include "server/headers.h"

namespace cosmos::server {

std::string KeyFingerprint(std::string_view key) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(key.data(), key.size(), digest, &length, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string fingerprint = "sha256:";
  for (unsigned int i = 0; i < 6 && i < length; ++i) {
    fingerprint += kHex[digest[i] >> 4];
    fingerprint += kHex[digest[i] & 0xF];
  }
  return fingerprint;
}
namespace {

constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::array<const char*, 7> kWeekdays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

// The message KeyProbe signs.
constexpr std::string_view kKeyProbeMessage = "cosmolite key check";

}  // namespace

std::optional<AuthorizationFields> ParseAuthorization(std::string_view header) {
  std::optional<std::string> decoded = PercentDecode(header);
  if (!decoded) return std::nullopt;
  AuthorizationFields fields;
  for (const NameValue& pair : SplitNameValues(*decoded, '&')) {
    if (!pair.has_value) return std::nullopt;
    std::string_view name = pair.name;
    std::string value(pair.value);
    if (name == "type") {
      fields.type = value;
    } else if (name == "ver") {
      fields.version = value;
    } else if (name == "sig") {
      fields.signature = value;  // base64 may itself contain '=' and '&' is never in base64
    }
  }
  if (fields.type.empty() || fields.version.empty() || fields.signature.empty()) return std::nullopt;
  return fields;
}

namespace {

std::string Escape(std::string_view text) {  // shows the string-to-sign on one line
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::optional<int64_t> ParseHttpDate(std::string_view text) {
  char weekday[4] = {}, month[4] = {}, zone[4] = {};
  int day = 0, year = 0, hour = 0, minute = 0, second = 0;
  std::string copy(text);
  if (std::sscanf(copy.c_str(), "%3s, %d %3s %d %d:%d:%d %3s", weekday, &day, month, &year, &hour,
                  &minute, &second, zone) != 8) {
    return std::nullopt;
  }
  if (!EqualsIgnoreCaseAscii(zone, "GMT") && !EqualsIgnoreCaseAscii(zone, "UTC")) return std::nullopt;
  int month_index = -1;
  for (size_t index = 0; index < kMonths.size(); ++index) {
    if (EqualsIgnoreCaseAscii(month, kMonths[index])) month_index = static_cast<int>(index);
  }
  if (month_index < 0 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month_index;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<int64_t>(timegm(&tm));
}

std::string FormatHttpDate(int64_t epoch_seconds) {
  std::time_t time = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&time, &tm);
  char text[40];
  std::snprintf(text, sizeof text, "%s, %02d %s %04d %02d:%02d:%02d GMT", kWeekdays[tm.tm_wday],
                tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return text;
}

struct MasterKeyAuth::HmacState {
  ~HmacState() {
    EVP_MD_CTX_free(inner);
    EVP_MD_CTX_free(outer);
    EVP_MD_free(sha256);
  }
  EVP_MD* sha256 = nullptr;
  EVP_MD_CTX* inner = nullptr;  // SHA-256 state after absorbing key XOR ipad (read-only)
  EVP_MD_CTX* outer = nullptr;  // SHA-256 state after absorbing key XOR opad (read-only)
  std::string probe;            // the key's signature of kKeyProbeMessage (KeyProbe)
};

MasterKeyAuth::MasterKeyAuth(std::unique_ptr<HmacState> state) : state_(std::move(state)) {}
MasterKeyAuth::MasterKeyAuth(MasterKeyAuth&&) noexcept = default;
MasterKeyAuth& MasterKeyAuth::operator=(MasterKeyAuth&&) noexcept = default;
MasterKeyAuth::~MasterKeyAuth() = default;

Result<MasterKeyAuth> MasterKeyAuth::Create(std::string_view master_key) {
  std::optional<std::vector<uint8_t>> key = Base64Decode(master_key);
  if (!key || key->empty()) return Status::BadRequest("The account key must be base64.");
  auto state = std::make_unique<HmacState>();
  state->sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  state->inner = EVP_MD_CTX_new();
  state->outer = EVP_MD_CTX_new();
  if (!state->sha256 || !state->inner || !state->outer) return Status::Internal("OpenSSL has no SHA-256");
  // RFC 2104: keys longer than the block are hashed first; shorter ones are zero-padded.
  constexpr size_t kBlock = 64;
  std::vector<uint8_t> block(kBlock, 0);
  if (key->size() > kBlock) {
    unsigned int length = 0;
    EVP_Digest(key->data(), key->size(), block.data(), &length, state->sha256, nullptr);
  } else {
    std::copy(key->begin(), key->end(), block.begin());
  }
  std::vector<uint8_t> inner_pad(kBlock), outer_pad(kBlock);
  for (size_t index = 0; index < kBlock; ++index) {
    inner_pad[index] = block[index] ^ 0x36;
    outer_pad[index] = block[index] ^ 0x5c;
  }
  EVP_DigestInit_ex(state->inner, state->sha256, nullptr);
  EVP_DigestUpdate(state->inner, inner_pad.data(), kBlock);
  EVP_DigestInit_ex(state->outer, state->sha256, nullptr);
  EVP_DigestUpdate(state->outer, outer_pad.data(), kBlock);
  MasterKeyAuth auth(std::move(state));
  auth.state_->probe = auth.Sign(kKeyProbeMessage);
  return auth;
}

std::string MasterKeyAuth::StringToSign(std::string_view verb, std::string_view resource_type,
                                        std::string_view resource_link, std::string_view ms_date,
                                        std::string_view date) {
  std::string text;
  text += ToLowerAscii(verb) + "\n";
  text += ToLowerAscii(resource_type) + "\n";
  text += std::string(resource_link) + "\n";
  text += ToLowerAscii(ms_date) + "\n";
  text += ToLowerAscii(date) + "\n";
  return text;
}

std::string MasterKeyAuth::Sign(std::string_view string_to_sign) const {
  thread_local std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                               &EVP_MD_CTX_free);
  unsigned char inner_hash[EVP_MAX_MD_SIZE];
  unsigned int inner_length = 0;
  EVP_MD_CTX_copy_ex(context.get(), state_->inner);
  EVP_DigestUpdate(context.get(), string_to_sign.data(), string_to_sign.size());
  EVP_DigestFinal_ex(context.get(), inner_hash, &inner_length);
  std::vector<uint8_t> digest(EVP_MAX_MD_SIZE);
  unsigned int length = 0;
  EVP_MD_CTX_copy_ex(context.get(), state_->outer);
  EVP_DigestUpdate(context.get(), inner_hash, inner_length);
  EVP_DigestFinal_ex(context.get(), digest.data(), &length);
  digest.resize(length);
  return Base64Encode(digest);
}

std::optional<std::string> MasterKeyAuth::KeyProbe(std::string_view key) {
  Result<MasterKeyAuth> auth = Create(key);
  if (!auth.ok()) return std::nullopt;
  return std::move(auth->state_->probe);
}

bool MasterKeyAuth::MatchesProbe(std::string_view probe) const {
  // Keys equal exactly when their HMACs of one message are equal; no key bytes are compared.
  const std::string& mine = state_->probe;
  return mine.size() == probe.size() && CRYPTO_memcmp(mine.data(), probe.data(), mine.size()) == 0;
}

Status MasterKeyAuth::Verify(const HttpRequest& request, std::string_view resource_type,
                             std::string_view resource_link, int64_t now_seconds) const {
  std::optional<std::string> header = request.headers.Get(headers::kAuthorization);
  return Verify(request, header ? ParseAuthorization(*header) : std::nullopt, resource_type, resource_link,
                now_seconds);
}

Status MasterKeyAuth::Verify(const HttpRequest& request, const std::optional<AuthorizationFields>& fields,
                             std::string_view resource_type, std::string_view resource_link,
                             int64_t now_seconds) const {
  if (!fields) {
    std::optional<std::string> header = request.headers.Get(headers::kAuthorization);
    if (!header || header->empty()) {
      return Status::Unauthorized(
          "Required Header authorization is missing. Ensure a valid Authorization token is passed.");
    }
    return Status::Unauthorized(
        "The authorization header is malformed: expected a URL-encoded "
        "'type=master&ver=1.0&sig=<signature>'.");
  }
  if (fields->type != "master") {
    return Status::Unauthorized("The authorization type '" + fields->type +
                                "' is not supported; sign requests with the master key (type=master).");
  }
  if (fields->version != "1.0") {
    return Status::Unauthorized("The authorization version '" + fields->version + "' is not supported; use 1.0.");
  }

  std::string ms_date = request.headers.Get(headers::kMsDate).value_or("");
  std::string date = ms_date.empty() ? request.headers.Get(headers::kDate).value_or("") : "";
  std::optional<int64_t> signed_at = ParseHttpDate(ms_date.empty() ? date : ms_date);
  if (!signed_at) {
    return Status::Unauthorized(
        "The input date header is invalid format. Please pass in RFC 1123 style date format in "
        "the x-ms-date or Date header.");
  }

  std::string string_to_sign = StringToSign(request.method, resource_type, resource_link, ms_date, date);
  std::string expected = Sign(string_to_sign);
  if (expected.size() != fields->signature.size() ||
      CRYPTO_memcmp(expected.data(), fields->signature.data(), expected.size()) != 0) {
    return Status::Unauthorized(
        "The input authorization token can't serve the request. Please check that the expected "
        "payload is built as per the protocol, and check the key being used. Server used the "
        "following payload to sign: '" + Escape(string_to_sign) + "'");
  }
  if (*signed_at < now_seconds - kAllowedClockSkewSeconds ||
      *signed_at > now_seconds + kAllowedClockSkewSeconds) {
    return Status::Forbidden(
        "The authorization token is not valid at the current time. Please create another token "
        "and retry (token start time: " + FormatHttpDate(*signed_at) +
        ", current server time: " + FormatHttpDate(now_seconds) + ").");
  }
  return Status();
}

}  // namespace cosmos::server
