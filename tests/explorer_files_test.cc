// The explorer's files as the server finds them: built in, or read from a directory.
#include "server/explorer_files.h"

#include <fstream>

#include "tests/test_support.h"

using cosmos::server::ExplorerFiles;

TEST_CASE("the built-in explorer holds its page and the charting library", "[explorer]") {
  ExplorerFiles files = ExplorerFiles::Embedded();
  auto index = files.Find("");
  REQUIRE(index);
  CHECK(index->content_type == "text/html; charset=utf-8");
  CHECK(index->body.find("<html") != std::string::npos);
  CHECK(files.Find("index.html")->body == index->body);
  auto chart = files.Find("vendor/uPlot.iife.min.js");
  REQUIRE(chart);
  CHECK(chart->content_type == "text/javascript; charset=utf-8");
  CHECK(chart->body.size() > 10000);
  CHECK(files.Find("vendor/uPlot.min.css"));
}

TEST_CASE("explorer paths that leave the folder or name other kinds of file are not found", "[explorer]") {
  cosmos_test::ScratchDir dir("explorer_files_test");
  std::ofstream(dir.File("index.html")) << "<html>page</html>";
  std::ofstream(dir.File("secret.txt")) << "not served";
  ExplorerFiles files = ExplorerFiles::FromDirectory(dir.path().string());
  CHECK(files.Find("")->body == "<html>page</html>");
  for (const char* path : {"secret.txt", "../index.html", "./index.html", "src/../index.html", "/index.html",
                           "src//a.js", "a\\b.js", "missing.js", "vendor/../../index.html"}) {
    INFO(path);
    CHECK_FALSE(files.Find(path));
  }
}
