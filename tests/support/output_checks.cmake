# Well-formedness checks of every output kind (libxml2 parses the SVG and HTML), for the tests
# of model text and the writers' fuzz target; included from tests/ and, in a fuzz-only build,
# from tests/fuzz/.
if(NOT TARGET cctx_output_checks)
  find_package(LibXml2 REQUIRED)
  add_library(cctx_output_checks STATIC ${CMAKE_CURRENT_LIST_DIR}/output_checks.cpp)
  target_include_directories(cctx_output_checks PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(cctx_output_checks PUBLIC LibXml2::LibXml2
                        PRIVATE nlohmann_json::nlohmann_json cctx_warnings)
endif()
