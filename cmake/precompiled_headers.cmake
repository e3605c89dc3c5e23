# Precompiled headers, the main saving of a cold build.
#
# Nearly every translation unit includes nlohmann/json (common/json.h) and a dozen standard
# headers; parsing them is 2-3 s of a typical TU's 6-7 s at -O3. The list below is compiled once
# and reused by the targets whose flags match. Only third-party and standard headers go in: a
# change to one of our own headers must not recompile every TU that happens to use the PCH.
#
# -DCOSMOLITE_PCH=OFF builds without them (to check that every file includes what it uses).
# The fuzz build (clang, sanitizers) goes without: clang refuses a PCH on any flag or macro
# difference between the targets that would share it.
option(COSMOLITE_PCH "precompile the third-party headers every translation unit includes" ON)
if(COSMOLITE_FUZZ)
  set(COSMOLITE_PCH OFF)
endif()

# The libraries' PCH: the standard library and nlohmann/json.
set(COSMOLITE_PCH_CORE
  <algorithm> <atomic> <chrono> <cmath> <cstdint> <functional> <map> <memory> <mutex>
  <optional> <string> <string_view> <thread> <unordered_map> <utility> <variant> <vector>
  <nlohmann/json.hpp>)
# cosmolite_pch(<target> <list>): <target> compiles the headers of <list> (a variable name).
function(cosmolite_pch target list)
  if(COSMOLITE_PCH)
    target_precompile_headers(${target} PRIVATE ${${list}})
  endif()
endfunction()

# cosmolite_pch_reuse(<target> <from>): <target> uses the PCH of <from>. Only between targets
# whose compile flags agree; gcc checks (-Winvalid-pch, an error under -Werror) so a mismatch
# fails the build instead of silently parsing everything again.
function(cosmolite_pch_reuse target from)
  if(COSMOLITE_PCH)
    target_precompile_headers(${target} REUSE_FROM ${from})
  endif()
endfunction()
