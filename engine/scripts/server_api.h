// The server-side JavaScript API (server_api.js), built into the binary: every script execution
// evaluates it first (script_engine.cc).
#pragma once

#include "common/embedded_file.h"

namespace cosmos::engine {

// One entry: "server_api.js".
extern const EmbeddedFile kServerApiFiles[];
extern const unsigned long kServerApiFilesCount;

}  // namespace cosmos::engine
