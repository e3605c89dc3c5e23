#include "bench/signing.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <ctime>

namespace cosmos::bench {
namespace {

constexpr std::array<const char*, 12> kMonthNames = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::array<const char*, 7> kDayNames = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

std::string LowerAscii(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string Base64Encode(const uint8_t* data, size_t size) {
  std::string out(4 * ((size + 2) / 3), '\0');
  int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(size));
  out.resize(static_cast<size_t>(written));
  return out;
}

std::optional<std::vector<uint8_t>> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::vector<uint8_t> out(text.size() / 4 * 3);
  int written = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (written < 0) return std::nullopt;
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') ++padding;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++padding;
  out.resize(static_cast<size_t>(written) - padding);
  return out;
}

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() * 3);
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out;
}

std::string HttpDate(std::chrono::system_clock::time_point time) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::snprintf(text, sizeof(text), "%s, %02d %s %04d %02d:%02d:%02d GMT", kDayNames[utc.tm_wday], utc.tm_mday,
                kMonthNames[utc.tm_mon], utc.tm_year + 1900, utc.tm_hour, utc.tm_min, utc.tm_sec);
  return text;
}

const std::string& DateClock::Now() {
  auto now = std::chrono::system_clock::now();
  int64_t second = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  if (second != second_) {
    second_ = second;
    text_ = HttpDate(now);
  }
  return text_;
}

std::optional<MasterKeySigner> MasterKeySigner::Create(std::string_view base64_key) {
  auto key = Base64Decode(base64_key);
  if (!key || key->empty()) return std::nullopt;
  return MasterKeySigner(std::move(*key));
}

std::string MasterKeySigner::Authorization(std::string_view verb, std::string_view resource_type,
                                           std::string_view resource_link, std::string_view date) const {
  std::string payload;
  payload.reserve(verb.size() + resource_type.size() + resource_link.size() + date.size() + 8);
  payload += LowerAscii(verb);
  payload += '\n';
  payload += resource_type;
  payload += '\n';
  payload += resource_link;
  payload += '\n';
  payload += LowerAscii(date);
  payload += "\n\n";
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_size = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
       reinterpret_cast<const unsigned char*>(payload.data()), payload.size(), digest, &digest_size);
  return UrlEncode("type=master&ver=1.0&sig=" + Base64Encode(digest, digest_size));
}

}  // namespace cosmos::bench
