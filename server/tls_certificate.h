// TLS material for HTTPS: the user's PEM files, or a certificate authority of our own that
// clients trust once, and a server certificate it issues at every start for the names the server
// can be reached by (localhost, the loopback addresses, the host name, every interface address and
// the names given with --cert-hosts). The authority is kept in the data directory, so a client
// that trusts it keeps trusting the server when a container restarts with a new address.
// Thread-safety: free functions without shared state.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace cosmos::server {

struct TlsMaterial {
  std::string certificate_pem;  // the chain served: the server certificate, then its issuer
  std::string private_key_pem;  // the server certificate's key
  std::string authority_pem;    // what clients trust; served at /_explorer/emulator.pem
  std::string authority_path;   // where the authority lives on disk; "(in memory)" when not written
};

// The DNS names and IP addresses a server certificate names.
struct CertificateNames {
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;  // textual, IPv4 or IPv6
};

// localhost, 127.0.0.1, ::1, the host name, the address of every interface that is up (IPv6
// link-local ones left out: a certificate cannot name their zone), then `extra`, each sorted into
// a DNS name or an IP address. Duplicates are dropped; an extra name with characters a DNS name
// cannot hold is refused with kBadRequest.
Result<CertificateNames> LocalCertificateNames(const std::vector<std::string>& extra);

// A fresh authority (in memory) and a server certificate for the local names: for tests.
Result<TlsMaterial> GenerateSelfSignedCertificate();

// Picks the certificate to serve: the user's files when both are given (the chain file is also
// what clients trust); otherwise the authority in `data_dir` (created there on first start; a file
// an older version wrote there, a self-signed server certificate, serves as the authority) or, without
// a data dir, a fresh one in memory, and a new server certificate it issues for `names`.
// Returns kInternal when files cannot be read or written.
Result<TlsMaterial> LoadOrCreateCertificate(const std::string& cert_file, const std::string& key_file,
                                            const std::optional<std::string>& data_dir,
                                            const CertificateNames& names);

}  // namespace cosmos::server
