#include "server/tls_certificate.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace cosmos::server {
namespace {

constexpr long kValiditySeconds = 5L * 365 * 24 * 3600;
constexpr char kCertificateFile[] = "cosmolite-cert.pem";
constexpr char kPrivateKeyFile[] = "cosmolite-key.pem";

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* pointer) const { Free(pointer); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(size));
}

bool AddExtension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
  if (!extension) return false;
  bool added = X509_add_ext(cert, extension, -1) == 1;
  X509_EXTENSION_free(extension);
  return added;
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  std::string host(name);
  for (char c : host) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
    if (!ok) return "";
  }
  return host;
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

}  // namespace

Result<TlsMaterial> GenerateSelfSignedCertificate() {
  KeyPtr key(EVP_EC_gen("P-256"));
  CertPtr cert(X509_new());
  if (!key || !cert) return Status::Internal("cannot allocate the TLS key or certificate");

  X509_set_version(cert.get(), 2);  // v3
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7F;  // positive
  BIGNUM* serial_number = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(serial_number, X509_get_serialNumber(cert.get()));
  BN_free(serial_number);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -24L * 3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValiditySeconds);
  X509_set_pubkey(cert.get(), key.get());

  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("cosmolite"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);

  std::string names = "DNS:localhost,IP:127.0.0.1,IP:0:0:0:0:0:0:0:1";
  std::string host = HostName();
  if (!host.empty() && host != "localhost") names += ",DNS:" + host;
  // CA:TRUE lets users import this one certificate as a trust anchor (Java cacerts, NODE_EXTRA_CA_CERTS).
  bool extensions_ok = AddExtension(cert.get(), NID_subject_alt_name, names) &&
                       AddExtension(cert.get(), NID_basic_constraints, "critical,CA:TRUE") &&
                       AddExtension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign") &&
                       AddExtension(cert.get(), NID_ext_key_usage, "serverAuth") &&
                       AddExtension(cert.get(), NID_subject_key_identifier, "hash");
  if (!extensions_ok) return Status::Internal("cannot add the certificate extensions");
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) return Status::Internal("cannot sign the certificate");

  BioPtr cert_bio(BIO_new(BIO_s_mem()));
  BioPtr key_bio(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_X509(cert_bio.get(), cert.get()) ||
      !PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr)) {
    return Status::Internal("cannot encode the certificate as PEM");
  }
  return TlsMaterial{BioText(cert_bio.get()), BioText(key_bio.get()), "(in memory)"};
}

Result<TlsMaterial> LoadOrCreateCertificate(const std::string& cert_file, const std::string& key_file,
                                            const std::optional<std::string>& data_dir) {
  if (!cert_file.empty() || !key_file.empty()) {
    if (cert_file.empty() || key_file.empty()) {
      return Status::Internal("--cert and --cert-key must be given together");
    }
    COSMOS_ASSIGN_OR_RETURN(auto certificate, ReadFile(cert_file));
    COSMOS_ASSIGN_OR_RETURN(auto private_key, ReadFile(key_file));
    return TlsMaterial{certificate, private_key, cert_file};
  }
  if (!data_dir) return GenerateSelfSignedCertificate();

  std::filesystem::path cert_path = std::filesystem::path(*data_dir) / kCertificateFile;
  std::filesystem::path key_path = std::filesystem::path(*data_dir) / kPrivateKeyFile;
  if (std::filesystem::exists(cert_path) && std::filesystem::exists(key_path)) {
    COSMOS_ASSIGN_OR_RETURN(auto certificate, ReadFile(cert_path));
    COSMOS_ASSIGN_OR_RETURN(auto private_key, ReadFile(key_path));
    return TlsMaterial{certificate, private_key, cert_path};
  }
  COSMOS_ASSIGN_OR_RETURN(auto material, GenerateSelfSignedCertificate());
  COSMOS_RETURN_IF_ERROR(WriteFile(key_path, material.private_key_pem, 0600));
  COSMOS_RETURN_IF_ERROR(WriteFile(cert_path, material.certificate_pem, 0644));
  material.certificate_path = cert_path;
  return material;
}

}  // namespace cosmos::server
