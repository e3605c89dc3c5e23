// ExplorerFiles: the data explorer's static files, served under /_explorer/. They are the files of
// explorer/ (the page, its scripts and styles, and the charting library npm installed there),
// embedded in the binary when it is built; or, for working on the page, the files of a directory
// read at each request (--explorer-dir explorer: index.html, style.css, src/…, and vendor/… read
// from node_modules/uplot/dist/). The files hold no data: the page asks the REST API for it, signing
// each request with the account key the user enters (explorer/README.md).
// Thread-safety: immutable after construction; Find may run on many threads at once.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/embedded_file.h"

namespace cosmos::server {

// The explorer's files, by their path below /_explorer/.
extern const EmbeddedFile kExplorerEmbeddedFiles[];
extern const unsigned long kExplorerEmbeddedFilesCount;

struct ExplorerFile {
  std::string content_type;
  std::string body;
};

class ExplorerFiles {
 public:
  // The files built into the binary.
  static ExplorerFiles Embedded();
  // The files of `directory`, read when asked for.
  static ExplorerFiles FromDirectory(std::string directory);

  // The file at `relative`, the path below /_explorer/ ("" is index.html); nullopt when there is
  // none, or when the path leaves the directory or names a kind of file the page does not use.
  std::optional<ExplorerFile> Find(std::string_view relative) const;

  // The response headers every explorer file carries: no script, style or connection from
  // anywhere but this server, and no sniffing of types.
  static constexpr char kContentSecurityPolicy[] =
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
      "connect-src 'self'; frame-ancestors 'none'";

 private:
  explicit ExplorerFiles(std::string directory) : directory_(std::move(directory)) {}

  std::string directory_;  // empty: the embedded files
};

}  // namespace cosmos::server
