# cctx_add_plugin(<name> <sources...>)
# Builds a cctx plugin: a MODULE library against the header-only SDK, hidden visibility, a version
# script that exports only `cctx_plugin_v1`, and --no-undefined so a plugin cannot depend on host
# symbols. Used for the built-in opsets and, from an installed SDK, by vendors.
function(cctx_add_plugin name)
  set(_CCTX_PLUGIN_MAP "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/cctx_plugin.map")
  add_library(${name} MODULE ${ARGN})
  if(NOT TARGET cctx::sdk)
    message(FATAL_ERROR "cctx_add_plugin: the target cctx::sdk is missing (find_package(cctx_sdk))")
  endif()
  target_link_libraries(${name} PRIVATE cctx::sdk)
  set_target_properties(${name} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    PREFIX "lib")
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${name} PRIVATE "LINKER:--version-script=${_CCTX_PLUGIN_MAP}")
    # clang links sanitizer runtimes into executables only: a sanitized plugin's __asan_* symbols
    # resolve against the host at load time, so it cannot be linked with --no-undefined.
    if(NOT (CCTX_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang"))
      target_link_options(${name} PRIVATE "LINKER:--no-undefined")
    endif()
    set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS "${_CCTX_PLUGIN_MAP}")
  endif()
endfunction()
