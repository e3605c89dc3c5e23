#include "server/tls_certificate.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace cosmos::server {
namespace {

constexpr long kAuthorityValiditySeconds = 5L * 365 * 24 * 3600;
// A server certificate is issued at every start; 397 days is the most browsers accept for one.
constexpr long kServerValiditySeconds = 397L * 24 * 3600;
// The authority keeps the file names an older version gave its self-signed certificate, which
// clients already trust and which therefore serves as the authority now.
constexpr char kAuthorityFile[] = "cosmolite-cert.pem";
constexpr char kAuthorityKeyFile[] = "cosmolite-key.pem";

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* pointer) const { Free(pointer); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

// A key and the certificate that carries its public half.
struct KeyedCertificate {
  KeyPtr key;
  CertPtr certificate;
};

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(size));
}

bool AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
  if (!extension) return false;
  bool added = X509_add_ext(cert, extension, -1) == 1;
  X509_EXTENSION_free(extension);
  return added;
}

bool IsDnsName(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '*';
  });
}

// The canonical text of an IP address, or nullopt when `text` is not one.
std::optional<std::string> CanonicalIp(const std::string& text) {
  unsigned char address[sizeof(in6_addr)];
  char canonical[INET6_ADDRSTRLEN] = {};
  if (inet_pton(AF_INET, text.c_str(), address) == 1) {
    return inet_ntop(AF_INET, address, canonical, sizeof canonical) ? std::optional<std::string>(canonical)
                                                                     : std::nullopt;
  }
  if (inet_pton(AF_INET6, text.c_str(), address) == 1) {
    return inet_ntop(AF_INET6, address, canonical, sizeof canonical) ? std::optional<std::string>(canonical)
                                                                      : std::nullopt;
  }
  return std::nullopt;
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  std::string host(name);
  return IsDnsName(host) ? host : "";
}

std::vector<std::string> InterfaceAddresses() {
  std::vector<std::string> addresses;
  ifaddrs* interfaces = nullptr;
  if (getifaddrs(&interfaces) != 0) return addresses;
  for (ifaddrs* entry = interfaces; entry; entry = entry->ifa_next) {
    if (!entry->ifa_addr || !(entry->ifa_flags & IFF_UP)) continue;
    char text[INET6_ADDRSTRLEN] = {};
    if (entry->ifa_addr->sa_family == AF_INET) {
      auto* address = reinterpret_cast<sockaddr_in*>(entry->ifa_addr);
      if (inet_ntop(AF_INET, &address->sin_addr, text, sizeof text)) addresses.emplace_back(text);
    } else if (entry->ifa_addr->sa_family == AF_INET6) {
      auto* address = reinterpret_cast<sockaddr_in6*>(entry->ifa_addr);
      if (IN6_IS_ADDR_LINKLOCAL(&address->sin6_addr)) continue;
      if (inet_ntop(AF_INET6, &address->sin6_addr, text, sizeof text)) addresses.emplace_back(text);
    }
  }
  freeifaddrs(interfaces);
  return addresses;
}

void AddUnique(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

CertPtr NewCertificate(EVP_PKEY* key, long valid_seconds) {
  CertPtr cert(X509_new());
  if (!cert) return cert;
  X509_set_version(cert.get(), 2);  // v3
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7F;  // positive
  BIGNUM* serial_number = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(serial_number, X509_get_serialNumber(cert.get()));
  BN_free(serial_number);
  // A day of slack for clocks behind ours (another container, a laptop's VM).
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -24L * 3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), valid_seconds);
  X509_set_pubkey(cert.get(), key);
  return cert;
}

void SetSubject(X509* cert, const char* common_name) {
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("cosmolite"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(common_name), -1, -1,
                             0);
}

Result<KeyedCertificate> GenerateAuthority() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return Status::Internal("cannot generate the certificate authority's key");
  CertPtr cert = NewCertificate(key.get(), kAuthorityValiditySeconds);
  if (!cert) return Status::Internal("cannot allocate the certificate authority");
  SetSubject(cert.get(), "cosmolite emulator certificate authority");
  X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get()));
  // CA:TRUE lets users import this one certificate as a trust anchor (Java cacerts, NODE_EXTRA_CA_CERTS).
  bool extensions_ok = AddExtension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0") &&
                       AddExtension(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign") &&
                       AddExtension(cert.get(), cert.get(), NID_subject_key_identifier, "hash");
  if (!extensions_ok) return Status::Internal("cannot add the certificate authority's extensions");
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) {
    return Status::Internal("cannot sign the certificate authority");
  }
  return KeyedCertificate{std::move(key), std::move(cert)};
}

Result<KeyedCertificate> IssueServerCertificate(const KeyedCertificate& authority, const CertificateNames& names) {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return Status::Internal("cannot generate the server certificate's key");
  CertPtr cert = NewCertificate(key.get(), kServerValiditySeconds);
  if (!cert) return Status::Internal("cannot allocate the server certificate");
  // Not the authority's subject, so that no client mistakes the server certificate for self-issued.
  SetSubject(cert.get(), "cosmolite emulator");
  X509_set_issuer_name(cert.get(), X509_get_subject_name(authority.certificate.get()));

  std::string alternative_names;
  auto add_name = [&alternative_names](const char* kind, const std::string& name) {
    if (!alternative_names.empty()) alternative_names.push_back(',');
    alternative_names.append(kind).append(name);
  };
  for (const std::string& dns : names.dns_names) add_name("DNS:", dns);
  for (const std::string& ip : names.ip_addresses) add_name("IP:", ip);
  X509* issuer = authority.certificate.get();
  bool extensions_ok = AddExtension(cert.get(), issuer, NID_subject_alt_name, alternative_names) &&
                       AddExtension(cert.get(), issuer, NID_basic_constraints, "critical,CA:FALSE") &&
                       AddExtension(cert.get(), issuer, NID_key_usage, "critical,digitalSignature") &&
                       AddExtension(cert.get(), issuer, NID_ext_key_usage, "serverAuth") &&
                       AddExtension(cert.get(), issuer, NID_subject_key_identifier, "hash") &&
                       AddExtension(cert.get(), issuer, NID_authority_key_identifier, "keyid:always");
  if (!extensions_ok) return Status::Internal("cannot add the server certificate's extensions (names: " + alternative_names + ")");
  if (X509_sign(cert.get(), authority.key.get(), EVP_sha256()) == 0) {
    return Status::Internal("cannot sign the server certificate");
  }
  return KeyedCertificate{std::move(key), std::move(cert)};
}

Result<std::string> CertificatePem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_X509(bio.get(), cert)) return Status::Internal("cannot encode a certificate as PEM");
  return BioText(bio.get());
}

Result<std::string> KeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)) {
    return Status::Internal("cannot encode a private key as PEM");
  }
  return BioText(bio.get());
}

Result<KeyedCertificate> ParseKeyedCertificate(const std::string& certificate_pem, const std::string& key_pem,
                                               const std::string& where) {
  BioPtr cert_bio(BIO_new_mem_buf(certificate_pem.data(), static_cast<int>(certificate_pem.size())));
  BioPtr key_bio(BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())));
  CertPtr cert(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
  KeyPtr key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (!cert || !key) return Status::Internal("cannot parse the certificate authority in " + where);
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return Status::Internal("the certificate authority in " + where + " does not match its key");
  }
  return KeyedCertificate{std::move(key), std::move(cert)};
}

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Internal("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Status WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::Internal("cannot write " + path);
  chmod(path.c_str(), mode);
  return Status();
}

Result<TlsMaterial> IssueFrom(const KeyedCertificate& authority, const CertificateNames& names,
                              std::string authority_path) {
  COSMOS_ASSIGN_OR_RETURN(auto server, IssueServerCertificate(authority, names));
  COSMOS_ASSIGN_OR_RETURN(auto server_pem, CertificatePem(server.certificate.get()));
  COSMOS_ASSIGN_OR_RETURN(auto server_key_pem, KeyPem(server.key.get()));
  COSMOS_ASSIGN_OR_RETURN(auto authority_pem, CertificatePem(authority.certificate.get()));
  return TlsMaterial{server_pem + authority_pem, server_key_pem, authority_pem, std::move(authority_path)};
}

}  // namespace

Result<CertificateNames> LocalCertificateNames(const std::vector<std::string>& extra) {
  CertificateNames names;
  names.dns_names.push_back("localhost");
  names.ip_addresses = {"127.0.0.1", "::1"};
  if (std::string host = HostName(); !host.empty()) AddUnique(names.dns_names, host);
  for (const std::string& address : InterfaceAddresses()) AddUnique(names.ip_addresses, address);
  for (const std::string& name : extra) {
    if (name.empty()) continue;
    if (std::optional<std::string> ip = CanonicalIp(name)) {
      AddUnique(names.ip_addresses, *ip);
    } else if (IsDnsName(name)) {
      AddUnique(names.dns_names, name);
    } else {
      return Status::BadRequest("'" + name + "' is neither a host name nor an IP address");
    }
  }
  return names;
}

Result<TlsMaterial> GenerateSelfSignedCertificate() {
  COSMOS_ASSIGN_OR_RETURN(auto names, LocalCertificateNames({}));
  COSMOS_ASSIGN_OR_RETURN(auto authority, GenerateAuthority());
  return IssueFrom(authority, names, "(in memory)");
}

Result<TlsMaterial> LoadOrCreateCertificate(const std::string& cert_file, const std::string& key_file,
                                            const std::optional<std::string>& data_dir,
                                            const CertificateNames& names) {
  if (!cert_file.empty() || !key_file.empty()) {
    if (cert_file.empty() || key_file.empty()) {
      return Status::Internal("--cert and --cert-key must be given together");
    }
    COSMOS_ASSIGN_OR_RETURN(auto certificate, ReadFile(cert_file));
    COSMOS_ASSIGN_OR_RETURN(auto private_key, ReadFile(key_file));
    return TlsMaterial{certificate, private_key, certificate, cert_file};
  }
  if (!data_dir) {
    COSMOS_ASSIGN_OR_RETURN(auto authority, GenerateAuthority());
    return IssueFrom(authority, names, "(in memory)");
  }

  std::filesystem::path authority_path = std::filesystem::path(*data_dir) / kAuthorityFile;
  std::filesystem::path key_path = std::filesystem::path(*data_dir) / kAuthorityKeyFile;
  if (std::filesystem::exists(authority_path) && std::filesystem::exists(key_path)) {
    COSMOS_ASSIGN_OR_RETURN(auto authority_pem, ReadFile(authority_path));
    COSMOS_ASSIGN_OR_RETURN(auto key_pem, ReadFile(key_path));
    COSMOS_ASSIGN_OR_RETURN(auto authority, ParseKeyedCertificate(authority_pem, key_pem, *data_dir));
    return IssueFrom(authority, names, authority_path);
  }
  COSMOS_ASSIGN_OR_RETURN(auto authority, GenerateAuthority());
  COSMOS_ASSIGN_OR_RETURN(auto authority_pem, CertificatePem(authority.certificate.get()));
  COSMOS_ASSIGN_OR_RETURN(auto key_pem, KeyPem(authority.key.get()));
  COSMOS_RETURN_IF_ERROR(WriteFile(key_path, key_pem, 0600));
  COSMOS_RETURN_IF_ERROR(WriteFile(authority_path, authority_pem, 0644));
  return IssueFrom(authority, names, authority_path);
}

}  // namespace cosmos::server
