# llmjson: cmake -P test: a top-level build with no build type builds Release; an explicit build
# type, a parent project's and a multi-config generator's are left alone
# SPDX-License-Identifier: MIT
#
# -D inputs: SOURCE_DIR, WORK_DIR, GENERATOR, CXX_COMPILER, and optionally MAKE_PROGRAM.
cmake_minimum_required(VERSION 3.21)
include("${CMAKE_CURRENT_LIST_DIR}/configure_run.cmake")

file(REMOVE_RECURSE "${WORK_DIR}")
set(common "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
set(generator -G "${GENERATOR}")
if(MAKE_PROGRAM)
  list(APPEND generator "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
set(lib_only -DLLMJSON_BUILD_TESTS=OFF -DLLMJSON_BUILD_EXAMPLES=OFF -DLLMJSON_INSTALL=OFF)

# build_type_is(NAME VALUE): the build type in WORK_DIR/NAME's cache is VALUE
function(build_type_is name value)
  load_cache("${WORK_DIR}/${name}" READ_WITH_PREFIX cache_ CMAKE_BUILD_TYPE)
  if(NOT "${cache_CMAKE_BUILD_TYPE}" STREQUAL "${value}")
    message(FATAL_ERROR "${name}: CMAKE_BUILD_TYPE is '${cache_CMAKE_BUILD_TYPE}', not '${value}'")
  endif()
endfunction()

configure(top_default EXPECT ok SOURCE "${SOURCE_DIR}" ARGS ${generator} ${lib_only}
  MATCH "llmjson: no CMAKE_BUILD_TYPE given, building Release")
build_type_is(top_default Release)
configure(top_debug EXPECT ok SOURCE "${SOURCE_DIR}" ARGS ${generator} ${lib_only}
  -DCMAKE_BUILD_TYPE=Debug NO_MATCH "building Release")
build_type_is(top_debug Debug)

file(WRITE "${WORK_DIR}/parent/CMakeLists.txt" "cmake_minimum_required(VERSION 3.21)
project(parent LANGUAGES CXX)
add_subdirectory(\"${SOURCE_DIR}\" llmjson)
")
configure(subproject EXPECT ok SOURCE "${WORK_DIR}/parent" ARGS ${generator}
  NO_MATCH "building Release")
build_type_is(subproject "")

find_program(ninja NAMES ninja ninja-build)
if(ninja)
  configure(multi_config EXPECT ok SOURCE "${SOURCE_DIR}" ARGS -G "Ninja Multi-Config"
    "-DCMAKE_MAKE_PROGRAM=${ninja}" ${lib_only} NO_MATCH "building Release")
  build_type_is(multi_config "")
else()
  message(STATUS "no ninja: the multi-config case is not checked")
endif()
