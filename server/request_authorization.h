// RequestAuthorizer: whether a request may run, from its authorization header, which names one of
// three schemes:
//   type=master    an account-key signature: the primary key, the secondary one, or a read-only
//                  one (reads and queries only; its write is the 401 of a wrong signature, as the
//                  service answers it);
//   type=resource  a resource token a permission issued: the engine checks it against the
//                  permission's scope (engine/security/security.h), 401 when it is bad, 403 when
//                  the request lies outside the scope;
//   type=aad       an Entra ID token (aad_token.h), then the principal's data-plane role
//                  (engine/security/access_rules.h).
// The administration endpoints under /_cosmolite/ take an account key: in the x-cosmolite-key
// header or as a master signature over an empty resource type and link; reads with any key,
// actions with a writable one.
// Thread-safety: immutable after construction; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "engine/account.h"
#include "server/aad_token.h"
#include "server/auth.h"
#include "server/http_message.h"
#include "server/resource_path.h"

namespace cosmos::server {

struct HandlerOptions;

class RequestAuthorizer {
 public:
  RequestAuthorizer(engine::Account& account, MasterKeyAuth primary, const HandlerOptions& options);
  RequestAuthorizer(const RequestAuthorizer&) = delete;  // its Entra ID verifier points back at it
  RequestAuthorizer& operator=(const RequestAuthorizer&) = delete;

  // A Cosmos REST request whose path parsed; `write`: whether it may change anything.
  Status Authorize(const HttpRequest& request, const ResourcePath& path, bool write, int64_t now_seconds) const;
  // A request under /_cosmolite/.
  Status AuthorizeAdmin(const HttpRequest& request, int64_t now_seconds) const;

 private:
  // The signature (its header parsed once: `fields`) against the primary key, then the secondary
  // and the read-only ones.
  Status VerifyMasterSignature(const HttpRequest& request, const std::optional<AuthorizationFields>& fields,
                               std::string_view resource_type, std::string_view resource_link, bool write,
                               int64_t now_seconds) const;
  // Which of the account's keys a key's text is, if any.
  enum class KeyKind { kWritable, kReadOnly };
  std::optional<KeyKind> KindOfKey(std::string_view key_text) const;
  // Which role an account key's text gives an Entra ID emulator token; nullopt for no key.
  std::optional<engine::DataPlaneRole> RoleOfKey(std::string_view key_text) const;

  engine::Account& account_;
  MasterKeyAuth primary_;
  struct OtherKey {
    MasterKeyAuth auth;
    bool read_only = false;
  };
  std::vector<OtherKey> other_keys_;  // secondary keys first
  AadTokenVerifier aad_;
};

// What the engine's access rules need to know of a request.
engine::AccessRequest AccessRequestOf(const HttpRequest& request, const ResourcePath& path, bool write);

}  // namespace cosmos::server
