# llmjson: compiles one case of compile_fail.cpp and checks that it fails for the reason it should
# SPDX-License-Identifier: MIT
# cmake -DSETTINGS=compile_fail_<config>.cmake -DSOURCE=compile_fail.cpp -DCASE=name -DWORK_DIR=dir
#       [-DFIRST_ERROR=regex] [-DOUTPUT=regex] [-DCOMPILES=ON] [-DOBJECT="flags"] -P compile_fail.cmake
# SETTINGS (written by tests/CMakeLists.txt) names the compiler and the target's flags. The case is
# parsed with -fsyntax-only and must fail: the first line with "error:" must match FIRST_ERROR (so
# the compiler's first complaint names the rule, not a failure deep inside a header), and the whole
# output must match OUTPUT when it is given. With COMPILES it must compile instead; OBJECT compiles
# it to an object file with those extra flags (warnings that need the optimizer).
cmake_minimum_required(VERSION 3.21)
include("${SETTINGS}")
separate_arguments(command NATIVE_COMMAND "${FLAGS}")
list(PREPEND command "${COMPILER}")
list(APPEND command ${STANDARD})
foreach(dir IN LISTS INCLUDES)
  if(NOT dir OR dir IN_LIST IMPLICIT_INCLUDES)
    continue()  # a -I on /usr/include breaks the standard library's #include_next
  elseif(dir STREQUAL OWN_INCLUDE OR COMPILER_ID STREQUAL "MSVC")
    list(APPEND command "-I${dir}")
  else()
    list(APPEND command -isystem "${dir}")  # as CMake gives other projects' headers
  endif()
endforeach()
list(REMOVE_ITEM DEFINITIONS LLMJSON_CASE_ok)
if(OBJECT)  # compiled as a user's header-only build: the warnings see every body inlined
  list(REMOVE_ITEM DEFINITIONS LLMJSON_SEPARATE_COMPILATION)
endif()
foreach(definition IN LISTS DEFINITIONS)
  list(APPEND command "-D${definition}")
endforeach()
list(APPEND command ${OPTIONS} "-DLLMJSON_CASE_${CASE}")
if(OBJECT)
  separate_arguments(object_flags NATIVE_COMMAND "${OBJECT}")
  list(APPEND command ${object_flags} -c "${SOURCE}" -o "${WORK_DIR}/compile_fail_${CASE}.o")
elseif(COMPILER_ID STREQUAL "MSVC")
  list(APPEND command /Zs "${SOURCE}")
else()
  list(APPEND command -fsyntax-only "${SOURCE}")
  # The precompiled <llmjson/llmjson.hpp> of llmjson_compile_fail_flags, as CMake passes it.
  if(COMPILER_ID STREQUAL "GNU" AND EXISTS "${PCH}.gch")
    set(with_pch ${command} -include "${PCH}")
  elseif(COMPILER_ID MATCHES "Clang" AND EXISTS "${PCH}.pch")
    set(with_pch ${command} -Xclang -include-pch -Xclang "${PCH}.pch" -Xclang -include -Xclang "${PCH}")
  endif()
endif()
if(with_pch)
  execute_process(COMMAND ${with_pch} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(out MATCHES "PCH file|precompiled header")  # built with other flags: parse the headers
    unset(with_pch)
  else()
    set(command ${with_pch})
  endif()
endif()
if(NOT with_pch)
  execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
endif()
list(JOIN command " " shown)
if(COMPILES)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CASE} must compile, and does not:\n${shown}\n${out}")
  endif()
  message(STATUS "${CASE} compiles: ${shown}")
  return()
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "${CASE} compiled, but it must not:\n${shown}")
endif()
string(REGEX MATCH "[^\n]*error( C[0-9]+)?:[^\n]*" first "${out}")
if(NOT first)
  message(FATAL_ERROR "${CASE} failed without a compiler error:\n${shown}\n${out}")
endif()
if(NOT first MATCHES "${FIRST_ERROR}")
  message(FATAL_ERROR "${CASE}: the first error is\n  ${first}\nit should match\n  ${FIRST_ERROR}\n"
    "Command: ${shown}\nWhole output:\n${out}")
endif()
if(OUTPUT AND NOT out MATCHES "${OUTPUT}")
  message(FATAL_ERROR "${CASE}: the output does not match ${OUTPUT}:\n${out}")
endif()
message(STATUS "${CASE} fails as it should: ${first}")
