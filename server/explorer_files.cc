#include "server/explorer_files.h"

#include <fstream>
#include <sstream>

namespace cosmos::server {

namespace {

std::optional<std::string> ContentTypeOf(std::string_view path) {
  struct Kind {
    std::string_view extension;
    const char* content_type;
  };
  static constexpr Kind kKinds[] = {
      {".html", "text/html; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"}, {".mjs", "text/javascript; charset=utf-8"},
      {".svg", "image/svg+xml"}, {".png", "image/png"}, {".json", "application/json"},
  };
  for (const Kind& kind : kKinds) {
    if (path.size() > kind.extension.size() && path.substr(path.size() - kind.extension.size()) == kind.extension) {
      return std::string(kind.content_type);
    }
  }
  return std::nullopt;
}

// A relative path of plain segments: no "..", no empty segment, no backslash, no leading slash.
bool IsPlainPath(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.find('\\') != std::string_view::npos) return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string_view segment = path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

}  // namespace

ExplorerFiles ExplorerFiles::Embedded() { return ExplorerFiles(""); }

ExplorerFiles ExplorerFiles::FromDirectory(std::string directory) { return ExplorerFiles(std::move(directory)); }

std::optional<ExplorerFile> ExplorerFiles::Find(std::string_view relative) const {
  std::string path = relative.empty() ? "index.html" : std::string(relative);
  if (!IsPlainPath(path)) return std::nullopt;
  std::optional<std::string> content_type = ContentTypeOf(path);
  if (!content_type) return std::nullopt;
  if (directory_.empty()) {
    for (unsigned long index = 0; index < kExplorerEmbeddedFilesCount; ++index) {
      const EmbeddedFile& file = kExplorerEmbeddedFiles[index];
      if (path == file.path) {
        return ExplorerFile{*content_type, std::string(reinterpret_cast<const char*>(file.data), file.size)};
      }
    }
    return std::nullopt;
  }
  // vendor/ is the charting library's dist folder, as npm installed it beside the page.
  constexpr std::string_view kVendor = "vendor/";
  std::string file_path = path.rfind(kVendor, 0) == 0
                              ? directory_ + "/node_modules/uplot/dist/" + path.substr(kVendor.size())
                              : directory_ + "/" + path;
  std::ifstream in(file_path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream body;
  body << in.rdbuf();
  return ExplorerFile{*content_type, body.str()};
}

}  // namespace cosmos::server
