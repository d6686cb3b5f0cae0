# Warning flags shared by every first-party target, as an INTERFACE target (no global flags).
add_library(cctx_warnings INTERFACE)
target_compile_options(cctx_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough>
  $<$<AND:$<BOOL:${CCTX_WERROR}>,$<CXX_COMPILER_ID:GNU,Clang>>:-Werror>)
# GCC 12 reports -Wrestrict inside libstdc++'s string concatenation at -O3 (GCC bug 105329,
# fixed in GCC 13); it is a false positive that would break Release builds under -Werror.
target_compile_options(cctx_warnings INTERFACE
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)
