# llmjson: cmake -P test: the installed llmjson.pc gives the flags to build a program against the
# installed headers, with no CMake involved
# SPDX-License-Identifier: MIT
#
# -D inputs: PKG_CONFIG, PREFIX, DATADIR, INCLUDEDIR, VERSION, CXX_COMPILER, CXX_FLAGS, SOURCE,
# WORK_DIR.
cmake_minimum_required(VERSION 3.21)

set(ENV{PKG_CONFIG_PATH} "${PREFIX}/${DATADIR}/pkgconfig")  # searched before the default path
execute_process(COMMAND "${PKG_CONFIG}" --modversion llmjson OUTPUT_VARIABLE version
  RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT version STREQUAL VERSION)
  message(FATAL_ERROR "pkg-config --modversion llmjson: exit ${rc}, '${version}', want ${VERSION}")
endif()
execute_process(COMMAND "${PKG_CONFIG}" --cflags llmjson OUTPUT_VARIABLE cflags
  RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
separate_arguments(cflags UNIX_COMMAND "${cflags}")
if(NOT IS_ABSOLUTE "${INCLUDEDIR}")
  set(INCLUDEDIR "${PREFIX}/${INCLUDEDIR}")
endif()
if(NOT rc EQUAL 0 OR NOT "-I${INCLUDEDIR}" IN_LIST cflags)
  message(FATAL_ERROR "pkg-config --cflags llmjson: exit ${rc}, '${cflags}', want -I${INCLUDEDIR}")
endif()
message(STATUS "pkg-config --cflags llmjson: ${cflags}")

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
separate_arguments(flags UNIX_COMMAND "${CXX_FLAGS}")
execute_process(COMMAND "${CXX_COMPILER}" -std=c++20 ${flags} ${cflags} "${SOURCE}"
  -o "${WORK_DIR}/consumer" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "c++ -std=c++20 $(pkg-config --cflags llmjson) main.cpp failed: ${rc}")
endif()
execute_process(COMMAND "${WORK_DIR}/consumer" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the program built with pkg-config's flags failed: ${rc}")
endif()
