# Warning flags shared by every first-party target, as an INTERFACE target (no global flags).
add_library(cctx_warnings INTERFACE)
target_compile_options(cctx_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough>
  $<$<AND:$<BOOL:${CCTX_WERROR}>,$<CXX_COMPILER_ID:GNU,Clang>>:-Werror>)
