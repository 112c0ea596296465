# llmjson: cmake -P test: without nlohmann/json or Catch2, configuring fails at once with what to
# install unless downloads are allowed; a download is announced with where it comes from
# SPDX-License-Identifier: MIT
#
# -D inputs: SOURCE_DIR, WORK_DIR, GENERATOR, CXX_COMPILER, JSON_INCLUDE_DIR (where
# nlohmann/json.hpp is), and optionally MAKE_PROGRAM.
# A package is hidden with CMAKE_DISABLE_FIND_PACKAGE_<name>; a "download" of nlohmann/json is
# served by FETCHCONTENT_SOURCE_DIR_NLOHMANN_JSON from a stand-in source tree, so no network is
# used. Each configure has 60 s: a download that hangs fails the test.
cmake_minimum_required(VERSION 3.21)

file(REMOVE_RECURSE "${WORK_DIR}")
set(common -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")  # used by configure()
if(MAKE_PROGRAM)
  list(APPEND common "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
set(top_only -DLLMJSON_BUILD_EXAMPLES=OFF -DLLMJSON_INSTALL=OFF)

include("${CMAKE_CURRENT_LIST_DIR}/configure_run.cmake")

# A parent project that adds llmjson as a subproject.
file(WRITE "${WORK_DIR}/parent/CMakeLists.txt" "cmake_minimum_required(VERSION 3.21)
project(parent LANGUAGES CXX)
add_subdirectory(\"${SOURCE_DIR}\" llmjson)
")
# A stand-in for nlohmann/json's release tarball: its target over the installed headers.
file(WRITE "${WORK_DIR}/json-src/CMakeLists.txt" "cmake_minimum_required(VERSION 3.21)
project(nlohmann_json VERSION 3.11.3 LANGUAGES CXX)
add_library(nlohmann_json INTERFACE)
add_library(nlohmann_json::nlohmann_json ALIAS nlohmann_json)
target_include_directories(nlohmann_json SYSTEM INTERFACE \"${JSON_INCLUDE_DIR}\")
")
set(no_json -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON)
set(json_url "https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz")
set(fix "apt-get install nlohmann-json3-dev.*-DLLMJSON_FETCH_DEPENDENCIES=ON")

# At the top level downloads are off by default: no nlohmann/json is an error naming the fixes.
configure(top_default EXPECT fail SOURCE "${SOURCE_DIR}" ARGS ${no_json} ${top_only}
  -DLLMJSON_BUILD_TESTS=OFF MATCH "needs nlohmann/json" "${fix}" NO_MATCH "downloading")
# No Catch2, tests on: an error naming the fixes, including building without the tests.
configure(top_no_catch2 EXPECT fail SOURCE "${SOURCE_DIR}"
  ARGS -DCMAKE_DISABLE_FIND_PACKAGE_Catch2=ON ${top_only} MATCH "tests need Catch2" "apt-get install catch2" "-DLLMJSON_BUILD_TESTS=OFF"
  "-DLLMJSON_FETCH_DEPENDENCIES=ON" NO_MATCH "downloading")
# A subproject downloads by default, and says from where.
configure(sub_default EXPECT ok SOURCE "${WORK_DIR}/parent" ARGS ${no_json}
  "-DFETCHCONTENT_SOURCE_DIR_NLOHMANN_JSON=${WORK_DIR}/json-src"
  MATCH "llmjson: nlohmann_json not found, downloading 3.11.3 from ${json_url}")
# A subproject with downloads off: the same error as at the top level.
configure(sub_no_fetch EXPECT fail SOURCE "${WORK_DIR}/parent" ARGS ${no_json}
  -DLLMJSON_FETCH_DEPENDENCIES=OFF "-DFETCHCONTENT_SOURCE_DIR_NLOHMANN_JSON=${WORK_DIR}/json-src"
  MATCH "needs nlohmann/json" "${fix}" NO_MATCH "downloading")
# An installed nlohmann/json is used, and named.
configure(top_found EXPECT ok SOURCE "${SOURCE_DIR}" ARGS ${top_only} -DLLMJSON_BUILD_TESTS=OFF
  MATCH "llmjson: nlohmann_json [0-9.]+ from " NO_MATCH "downloading")
