// EmbeddedFile: a file built into the binary. cmake/embed_files.cmake writes a table of them
// (`const EmbeddedFile NAME[]`, ended by an entry of nullptr, with NAMECount beside it).
#pragma once

namespace cosmos {

struct EmbeddedFile {
  const char* path;  // the name it was embedded under
  const unsigned char* data;
  unsigned long size;
};

}  // namespace cosmos
