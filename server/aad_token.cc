#include "server/aad_token.h"

#include <algorithm>

#include "common/encoding.h"
#include "common/json.h"

namespace cosmos::server {
namespace {

constexpr size_t kMaxTokenBytes = 16 * 1024;
constexpr int64_t kAllowedClockSkewSeconds = 5 * 60;

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::string standard(text);
  for (char& c : standard) {
    if (c == '-') {
      c = '+';
    } else if (c == '_') {
      c = '/';
    } else if (c == '+' || c == '/' || c == '=') {
      return std::nullopt;  // not base64url
    }
  }
  while (standard.size() % 4 != 0) standard += '=';
  std::optional<std::vector<uint8_t>> bytes = Base64Decode(standard);
  if (!bytes) return std::nullopt;
  return std::string(bytes->begin(), bytes->end());
}

std::optional<Json> JsonObjectOf(std::string_view part) {
  std::optional<std::string> text = Base64UrlDecode(part);
  if (!text) return std::nullopt;
  Json parsed = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
  return parsed;
}

Status Malformed() {
  return Status::Unauthorized(
      "The Entra ID (AAD) token is not a well-formed JWT: expected three base64url parts, a JSON header with "
      "\"alg\" and JSON claims with a numeric \"exp\".");
}

}  // namespace

std::optional<AadMode> ParseAadMode(std::string_view text) {
  if (text == "off") return AadMode::kOff;
  if (text == "emulator") return AadMode::kEmulator;
  if (text == "any") return AadMode::kAny;
  return std::nullopt;
}

AadTokenVerifier::AadTokenVerifier(AadMode mode, KeyRole key_role, std::vector<std::string> reader_principals)
    : mode_(mode), key_role_(std::move(key_role)), reader_principals_(std::move(reader_principals)) {}

Result<AadPrincipal> AadTokenVerifier::Verify(std::string_view jwt, int64_t now_seconds) const {
  if (mode_ == AadMode::kOff) {
    return Status::Unauthorized(
        "The authorization type 'aad' is not accepted by this emulator: start it with --aad-tokens emulator "
        "(or any) to accept Entra ID tokens.");
  }
  if (jwt.size() > kMaxTokenBytes) return Malformed();
  size_t first = jwt.find('.');
  size_t second = first == std::string_view::npos ? first : jwt.find('.', first + 1);
  if (second == std::string_view::npos || jwt.find('.', second + 1) != std::string_view::npos) return Malformed();
  std::optional<Json> header = JsonObjectOf(jwt.substr(0, first));
  std::optional<Json> claims = JsonObjectOf(jwt.substr(first + 1, second - first - 1));
  std::optional<std::string> signature = Base64UrlDecode(jwt.substr(second + 1));
  if (!header || !claims || !signature || !header->contains("alg") || !(*header)["alg"].is_string() ||
      !claims->contains("exp") || !(*claims)["exp"].is_number()) {
    return Malformed();
  }
  int64_t expires = static_cast<int64_t>((*claims)["exp"].get<double>());
  if (expires + kAllowedClockSkewSeconds < now_seconds) {
    return Status::Unauthorized("The Entra ID (AAD) token has expired (exp " + std::to_string(expires) +
                                ", server time " + std::to_string(now_seconds) + ").");
  }
  if (claims->contains("nbf") && (*claims)["nbf"].is_number() &&
      static_cast<int64_t>((*claims)["nbf"].get<double>()) > now_seconds + kAllowedClockSkewSeconds) {
    return Status::Unauthorized("The Entra ID (AAD) token is not valid yet (nbf is in the future).");
  }

  AadPrincipal principal;
  for (const char* claim : {"oid", "sub"}) {
    if (claims->contains(claim) && (*claims)[claim].is_string() && !(*claims)[claim].get<std::string>().empty()) {
      principal.object_id = (*claims)[claim].get<std::string>();
      break;
    }
  }
  if (principal.object_id.empty()) principal.object_id = "unknown";
  if (mode_ == AadMode::kEmulator) {
    std::optional<engine::DataPlaneRole> role = key_role_ ? key_role_(*signature) : std::nullopt;
    if (!role) {
      return Status::Unauthorized(
          "The Entra ID (AAD) token's signature is not valid for this emulator: in --aad-tokens emulator mode its "
          "signature part must be the base64url of an account key, as the SDKs' emulator credentials make it.");
    }
    principal.role = *role;
  }
  if (std::find(reader_principals_.begin(), reader_principals_.end(), principal.object_id) != reader_principals_.end()) {
    principal.role = engine::DataPlaneRole::kReader;
  }
  return principal;
}

}  // namespace cosmos::server
