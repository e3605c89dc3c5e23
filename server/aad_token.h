// AadTokenVerifier: Entra ID (AAD) bearer tokens, which the SDKs send as
// "type=aad&ver=1.0&sig=<JWT>" when built with a token credential. The emulator cannot ask Entra
// ID, so it offers the modes the official emulator's users rely on in SDK tests (--aad-tokens):
//   off       (the default) every AAD token is refused with 401;
//   emulator  a JWT whose signature part is the base64url of an account key's text, as the SDKs'
//             emulator credentials make them; the primary or secondary key makes the principal a
//             Data Contributor, a read-only key a Data Reader;
//   any       any well-formed JWT, its signature unchecked (for tokens from a real identity library).
// In every mode the header and claims must be base64url JSON objects and `exp` (and `nbf`, when
// present) must hold at the server's clock. The principal is the `oid` claim (else `sub`); one
// named by --aad-readers is a Data Reader whatever signed the token.
// Thread-safety: immutable after construction; thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "engine/security/access_rules.h"

namespace cosmos::server {

enum class AadMode { kOff, kEmulator, kAny };

// "off", "emulator", "any"; nullopt for anything else.
std::optional<AadMode> ParseAadMode(std::string_view text);

struct AadPrincipal {
  std::string object_id;
  engine::DataPlaneRole role = engine::DataPlaneRole::kContributor;
};

class AadTokenVerifier {
 public:
  // The role an account key gives (emulator mode), given the text a signature decodes to;
  // nullopt when it is no account key.
  using KeyRole = std::function<std::optional<engine::DataPlaneRole>(std::string_view candidate_key)>;

  // `reader_principals`: object ids that are Data Readers.
  AadTokenVerifier(AadMode mode, KeyRole key_role, std::vector<std::string> reader_principals);

  // The principal of a JWT, or kUnauthorized (mode off, malformed, wrongly signed, expired).
  Result<AadPrincipal> Verify(std::string_view jwt, int64_t now_seconds) const;

 private:
  AadMode mode_;
  KeyRole key_role_;
  std::vector<std::string> reader_principals_;
};

}  // namespace cosmos::server
