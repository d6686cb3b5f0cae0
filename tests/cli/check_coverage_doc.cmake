# Regenerates the coverage table with the built cctx and compares it with the committed page.
execute_process(COMMAND ${CCTX} plugins --format markdown
                OUTPUT_FILE ${ACTUAL} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cctx plugins --format markdown failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${EXPECTED} ${ACTUAL} RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "${EXPECTED} is out of date: run `make coverage-doc` (generated: ${ACTUAL})")
endif()
