# llmjson: cmake -P test: what `cmake --install` put in PREFIX (the cmake_install fixture's), and
# what `--component tool` installs on its own
# SPDX-License-Identifier: MIT
#
# -D inputs: BUILD_DIR, PREFIX, WORK_DIR, SOURCE_DIR, VERSION, DOCDIR, DATADIR, BINDIR, TOOL
# (whether the tool was built), GENERATOR, CXX_COMPILER, and optionally MAKE_PROGRAM.
cmake_minimum_required(VERSION 3.21)

function(expect_file path)
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "not installed: ${path}")
  endif()
endfunction()

expect_file("${PREFIX}/${DOCDIR}/LICENSE")
file(SHA256 "${PREFIX}/${DOCDIR}/LICENSE" installed)
file(SHA256 "${SOURCE_DIR}/LICENSE" original)
if(NOT installed STREQUAL original)
  message(FATAL_ERROR "${PREFIX}/${DOCDIR}/LICENSE is not the LICENSE file")
endif()
expect_file("${PREFIX}/${DATADIR}/cmake/llmjson/llmjsonConfig.cmake")
expect_file("${PREFIX}/${DATADIR}/pkgconfig/llmjson.pc")
file(STRINGS "${PREFIX}/${DATADIR}/pkgconfig/llmjson.pc" prefix_line REGEX "^prefix=")
if(NOT prefix_line STREQUAL "prefix=${PREFIX}")
  message(FATAL_ERROR "llmjson.pc says '${prefix_line}', installed in ${PREFIX}")
endif()
file(STRINGS "${BUILD_DIR}/install_manifest.txt" manifest)
if(NOT "${PREFIX}/${DATADIR}/pkgconfig/llmjson.pc" IN_LIST manifest)
  message(FATAL_ERROR "llmjson.pc is missing from install_manifest.txt")
endif()

# The README's install for find_package: configure without tests and examples, install unbuilt.
file(REMOVE_RECURSE "${WORK_DIR}")
set(options -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
if(MAKE_PROGRAM)
  list(APPEND options "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" ${options}
  -DLLMJSON_BUILD_TESTS=OFF -DLLMJSON_BUILD_EXAMPLES=OFF OUTPUT_QUIET RESULT_VARIABLE rc)
if(rc EQUAL 0)
  execute_process(COMMAND "${CMAKE_COMMAND}" --install "${WORK_DIR}/build"
    --prefix "${WORK_DIR}/prefix" OUTPUT_QUIET RESULT_VARIABLE rc)
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure with tests and examples off, then install unbuilt: failed (${rc})")
endif()
expect_file("${WORK_DIR}/prefix/${DATADIR}/cmake/llmjson/llmjsonConfig.cmake")
expect_file("${WORK_DIR}/prefix/include/llmjson/llmjson.hpp")

if(NOT TOOL)
  message(STATUS "the tool was not built (LLMJSON_BUILD_EXAMPLES=OFF): not checked")
  return()
endif()

# The tool, installed with the rest, runs and is the version of the headers.
expect_file("${PREFIX}/${BINDIR}/llmjson")
execute_process(COMMAND "${PREFIX}/${BINDIR}/llmjson" --version
  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "${VERSION}")
  message(FATAL_ERROR "${PREFIX}/${BINDIR}/llmjson --version: exit ${rc}, '${out}'")
endif()

# --component tool: the tool and its licence, nothing else.
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/tool"
  --component tool RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} --component tool failed: ${rc}")
endif()
file(GLOB_RECURSE files RELATIVE "${WORK_DIR}/tool" "${WORK_DIR}/tool/*")
list(SORT files)
set(want "${BINDIR}/llmjson" "${DOCDIR}/LICENSE")
list(SORT want)
if(NOT files STREQUAL want)
  message(FATAL_ERROR "--component tool installed '${files}', want '${want}'")
endif()
message(STATUS "installed: headers, CMake package, llmjson.pc, LICENSE, tool; "
               "--component tool: ${files}")
