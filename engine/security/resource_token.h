// Resource tokens: what reading a permission hands out, and what a client sends back as
// "type=resource&ver=1.0&sig=<token>". The token is "<signature>;<claims>;" — the claims name the
// permission, its user and the moment the token expires, and the signature is HMAC-SHA256 of the
// claims under a secret only the server knows (kept in the data file), so a token cannot be made
// or altered without the server. What a token may do is read from its permission at each use, so
// deleting the permission (or its user) ends every token it issued at once.
// Thread-safety: immutable after construction; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace cosmos::engine {

struct ResourceTokenClaims {
  int64_t permission_seq = 0;
  int64_t user_seq = 0;
  int64_t expires_at = 0;  // seconds since the epoch
};

class ResourceTokenSigner {
 public:
  // `secret`: the signing key's bytes (any length; 32 random bytes in practice).
  explicit ResourceTokenSigner(std::string secret);

  // The whole authorization value, "type=resource&ver=1.0&sig=<signature>;<claims>;".
  std::string Issue(const ResourceTokenClaims& claims) const;
  // The claims of a token's sig field ("<signature>;<claims>;"); kUnauthorized when it is
  // malformed or its signature does not hold. Expiry is the caller's to check.
  Result<ResourceTokenClaims> Open(std::string_view signature_field) const;

 private:
  std::string Sign(std::string_view claims) const;

  std::string secret_;
};

}  // namespace cosmos::engine
