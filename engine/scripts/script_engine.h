// ScriptEngine: the JavaScript engine behind stored procedures, triggers and user-defined
// functions. It is SpiderMonkey 102 ESR, Debian's libmozjs-102: the modern syntax real scripts use
// (const/let, arrow functions, template literals, classes), and an interrupt callback and heap cap
// for the sandbox. Each thread that uses it gets a JSContext of its own (SpiderMonkey's rule), made
// on first use.
// Thread-safety: every function may be called from any thread.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "common/result.h"

namespace cosmos::engine {

class ScriptEngine {
 public:
  // The heap one thread's engine may use: past it, an allocation fails with "out of memory".
  static constexpr size_t kHeapBytes = size_t{64} * 1024 * 1024;

  // Compiles `body`, a script definition's body, as the function expression it must be
  // ("function name(args) { … }" or an anonymous one), without running any of it. kBadRequest
  // with the engine's message and line when it does not compile or is not one function.
  static Status CheckFunction(std::string_view body);

  // What a stored procedure left: the response body it set (JSON text; empty when it set none)
  // and what it logged with console.log (lines joined with newlines).
  struct ProcedureResult {
    std::string body;
    std::string log;
  };

  // Runs a stored procedure's `body` with `arguments`, a JSON array's text, in a global of its
  // own (nothing of another execution is visible). Its context offers getContext() with
  // getResponse() (setBody, getBody, appendBody, getMaxResponseBodySize) and getRequest(), and
  // console.log; getCollection() throws, since document access is not served yet. kBadRequest with
  // the script's error (a throw, a syntax error, too much recursion, out of memory);
  // kRequestTimeout when it runs past `time_limit`, when it is stopped wherever it is.
  static Result<ProcedureResult> RunProcedure(std::string_view body, std::string_view arguments,
                                              std::chrono::milliseconds time_limit);
};

}  // namespace cosmos::engine
