// TLS material for HTTPS: the user's PEM files, or a self-signed certificate generated on first
// start (SANs: localhost, 127.0.0.1, ::1 and the host name) and kept in the data directory, so
// that clients trust it once.
// Thread-safety: free functions without shared state.
#pragma once

#include <optional>
#include <string>

#include "common/result.h"

namespace cosmos::server {

struct TlsMaterial {
  std::string certificate_pem;
  std::string private_key_pem;
  std::string certificate_path;  // where it lives on disk; "(in memory)" when not written
};

// Generates a new self-signed P-256 certificate valid for the local names.
Result<TlsMaterial> GenerateSelfSignedCertificate();

// Picks the certificate to serve: the user's files when both are given; otherwise the one in
// `data_dir` (created there on first start); otherwise, without a data dir, a fresh one in memory.
// Returns kInternal when files cannot be read or written.
Result<TlsMaterial> LoadOrCreateCertificate(const std::string& cert_file, const std::string& key_file,
                                            const std::optional<std::string>& data_dir);

}  // namespace cosmos::server
