#include "engine/security/resource_token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <charconv>
#include <vector>

#include "common/encoding.h"

namespace cosmos::engine {
namespace {

constexpr char kPrefix[] = "type=resource&ver=1.0&sig=";

Status Malformed() {
  return Status::Unauthorized(
      "The resource token in the authorization header is malformed or was not issued by this account.");
}

// "<permission>.<user>.<expires>" → claims.
bool ParseClaims(std::string_view text, ResourceTokenClaims* claims) {
  int64_t* fields[] = {&claims->permission_seq, &claims->user_seq, &claims->expires_at};
  for (size_t index = 0; index < 3; ++index) {
    size_t dot = index < 2 ? text.find('.') : text.size();
    if (dot == std::string_view::npos || dot == 0) return false;
    auto [end, error] = std::from_chars(text.data(), text.data() + dot, *fields[index]);
    if (error != std::errc() || end != text.data() + dot) return false;
    text.remove_prefix(index < 2 ? dot + 1 : dot);
  }
  return claims->permission_seq > 0 && claims->user_seq > 0;
}

}  // namespace

ResourceTokenSigner::ResourceTokenSigner(std::string secret) : secret_(std::move(secret)) {}

std::string ResourceTokenSigner::Sign(std::string_view claims) const {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
       reinterpret_cast<const unsigned char*>(claims.data()), claims.size(), digest, &length);
  return Base64Encode(std::vector<uint8_t>(digest, digest + length));
}

std::string ResourceTokenSigner::Issue(const ResourceTokenClaims& claims) const {
  std::string text = std::to_string(claims.permission_seq) + "." + std::to_string(claims.user_seq) + "." +
                     std::to_string(claims.expires_at);
  std::string encoded = Base64Encode(std::vector<uint8_t>(text.begin(), text.end()));
  std::string token = kPrefix;
  token += Sign(encoded);
  token += ';';
  token += encoded;
  token += ';';
  return token;
}

Result<ResourceTokenClaims> ResourceTokenSigner::Open(std::string_view field) const {
  size_t first = field.find(';');
  if (first == std::string_view::npos) return Malformed();
  std::string_view signature = field.substr(0, first);
  std::string_view encoded = field.substr(first + 1);
  if (!encoded.empty() && encoded.back() == ';') encoded.remove_suffix(1);
  if (encoded.empty() || encoded.size() > 256 || encoded.find(';') != std::string_view::npos) return Malformed();
  std::string expected = Sign(encoded);
  if (expected.size() != signature.size() ||
      CRYPTO_memcmp(expected.data(), signature.data(), expected.size()) != 0) {
    return Malformed();
  }
  std::optional<std::vector<uint8_t>> claims_bytes = Base64Decode(encoded);
  ResourceTokenClaims claims;
  if (!claims_bytes || !ParseClaims(std::string_view(reinterpret_cast<const char*>(claims_bytes->data()),
                                                     claims_bytes->size()), &claims)) {
    return Malformed();
  }
  return claims;
}

}  // namespace cosmos::engine
