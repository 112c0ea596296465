# llmjson: runs one compile-fail case and checks that it fails for the reason it should
# SPDX-License-Identifier: MIT
# cmake -DBUILD_DIR=... -DTARGET=... -DFIRST_ERROR=regex [-DOUTPUT=regex] -P compile_fail.cmake
# The build of TARGET must fail; the first line with "error:" must match FIRST_ERROR (so the
# compiler's first complaint names the rule, not a failure deep inside a header), and the whole
# output must match OUTPUT when it is given.
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} built, but it must not compile")
endif()
string(REGEX MATCH "[^\n]*error:[^\n]*" first "${out}")
if(NOT first)
  message(FATAL_ERROR "${TARGET} failed without a compiler error:\n${out}")
endif()
if(NOT first MATCHES "${FIRST_ERROR}")
  message(FATAL_ERROR "${TARGET}: the first error is\n  ${first}\nit should match\n  ${FIRST_ERROR}\n"
    "Whole output:\n${out}")
endif()
if(OUTPUT AND NOT out MATCHES "${OUTPUT}")
  message(FATAL_ERROR "${TARGET}: the output does not match ${OUTPUT}:\n${out}")
endif()
message(STATUS "${TARGET} fails as it should: ${first}")
