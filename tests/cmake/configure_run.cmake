# llmjson: configure(), for the cmake -P tests that only configure (offline.cmake, build_type.cmake)
# SPDX-License-Identifier: MIT
#
# Uses WORK_DIR and the list `common` (generator, compiler) of the including script.

# configure(NAME EXPECT ok|fail SOURCE dir [ARGS args...] [MATCH regex...] [NO_MATCH regex]):
# configures SOURCE in WORK_DIR/NAME within 60 s, expects it to succeed or fail, and its output
# (white space made single spaces) to match each MATCH and not NO_MATCH.
function(configure name)
  cmake_parse_arguments(PARSE_ARGV 1 a "" "EXPECT;SOURCE;NO_MATCH" "MATCH;ARGS")
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -S "${a_SOURCE}" -B "${WORK_DIR}/${name}" ${common} ${a_ARGS}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  set(out "${out}${err}")
  if(a_EXPECT STREQUAL "ok" AND NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: configure failed (${rc}), expected it to succeed:\n${out}")
  elseif(a_EXPECT STREQUAL "fail" AND (rc EQUAL 0 OR NOT rc MATCHES "^[0-9]+$"))
    message(FATAL_ERROR "${name}: configure gave '${rc}', expected a prompt failure:\n${out}")
  endif()
  string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}")  # messages are wrapped at any space
  foreach(re IN LISTS a_MATCH)
    if(NOT flat MATCHES "${re}")
      message(FATAL_ERROR "${name}: the output does not match '${re}':\n${out}")
    endif()
  endforeach()
  if(a_NO_MATCH AND flat MATCHES "${a_NO_MATCH}")
    message(FATAL_ERROR "${name}: the output matches '${a_NO_MATCH}':\n${out}")
  endif()
  message(STATUS "${name}: ok")
endfunction()
