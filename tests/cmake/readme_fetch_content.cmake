# llmjson: cmake -P test: the README's FetchContent block, exactly as printed, fetches, builds and
# runs tests/cmake/main.cpp, with its repository URL redirected by git to a local repository that
# holds this source tree (no network: every other http(s), ssh and git@ URL is redirected nowhere)
# SPDX-License-Identifier: MIT
#
# -D inputs: SOURCE_DIR, WORK_DIR, GIT_EXECUTABLE, GENERATOR, CXX_COMPILER, CXX_FLAGS, BUILD_TYPE,
# and optionally MAKE_PROGRAM, NLOHMANN_JSON_DIR.
#
# The README's URL is the project's home; a fork changes that URL only, and this test follows it.
# Its GIT_TAG must name `main` or a tag of this checkout: the local repository has a branch `main`
# and this checkout's tags, all at one commit of the current source tree.
cmake_minimum_required(VERSION 3.21)

function(run)  # run(COMMAND...): runs it in WORK_DIR, fails the test if it fails
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}")
  endif()
endfunction()

# 1. The block: the one ```cmake block of README.md that declares llmjson.
file(READ "${SOURCE_DIR}/README.md" readme)
set(block "")
set(found 0)
while(TRUE)
  string(FIND "${readme}" "```cmake\n" start)
  if(start EQUAL -1)
    break()
  endif()
  math(EXPR start "${start} + 9")
  string(SUBSTRING "${readme}" ${start} -1 readme)
  string(FIND "${readme}" "```" end)
  string(SUBSTRING "${readme}" 0 ${end} candidate)
  string(SUBSTRING "${readme}" ${end} -1 readme)
  if(candidate MATCHES "FetchContent_Declare\\(llmjson[ \t\n]")
    set(block "${candidate}")
    math(EXPR found "${found} + 1")
  endif()
endwhile()
if(NOT found EQUAL 1)
  message(FATAL_ERROR "README.md has ${found} cmake blocks with FetchContent_Declare(llmjson, "
                      "not 1")
endif()
if(NOT block MATCHES "GIT_REPOSITORY[ \t\n]+([^ \t\n)]+)")
  message(FATAL_ERROR "the README's FetchContent block has no GIT_REPOSITORY:\n${block}")
endif()
set(url "${CMAKE_MATCH_1}")
if(NOT url MATCHES "^https://[^<>]+$")
  message(FATAL_ERROR "the README's GIT_REPOSITORY is not an https URL a user can clone: ${url}")
endif()
if(NOT block MATCHES "GIT_TAG[ \t\n]+([^ \t\n)]+)")
  message(FATAL_ERROR "the README's FetchContent block has no GIT_TAG (pin a branch or tag)")
endif()
set(tag "${CMAKE_MATCH_1}")
message(STATUS "README: GIT_REPOSITORY ${url} GIT_TAG ${tag}")

# 2. The local repository: this source tree committed on `main`, with this checkout's tags.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/origin" "${WORK_DIR}/home" "${WORK_DIR}/consumer")
foreach(item include tests examples CMakeLists.txt README.md LICENSE .ci .clang-format
             .gitattributes .gitignore)
  if(EXISTS "${SOURCE_DIR}/${item}")
    file(COPY "${SOURCE_DIR}/${item}" DESTINATION "${WORK_DIR}/origin")
  endif()
endforeach()
set(ENV{HOME} "${WORK_DIR}/home")
set(ENV{XDG_CONFIG_HOME} "${WORK_DIR}/home/.config")
set(ENV{GIT_CONFIG_GLOBAL} "${WORK_DIR}/home/.gitconfig")
set(ENV{GIT_CONFIG_NOSYSTEM} 1)
file(WRITE "${WORK_DIR}/home/.gitconfig" "[user]
  name = llmjson test
  email = test@llmjson.invalid
[url \"file://${WORK_DIR}/origin\"]
  insteadOf = ${url}
[url \"file:///nonexistent/llmjson-test-has-no-network/\"]
  insteadOf = https://
  insteadOf = http://
  insteadOf = ssh://
  insteadOf = git@
")
set(git "${GIT_EXECUTABLE}" -C "${WORK_DIR}/origin")
run(${git} init -q -b main)
run(${git} add -A)
run(${git} commit -q -m "llmjson source tree under test")
execute_process(COMMAND ${git} rev-parse HEAD OUTPUT_VARIABLE snapshot
  OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" tag --list
  OUTPUT_VARIABLE tags OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
string(REPLACE "\n" ";" tags "${tags}")
foreach(t IN LISTS tags)
  run(${git} tag "${t}")
endforeach()
if(NOT tag STREQUAL "main" AND NOT tag IN_LIST tags)
  message(FATAL_ERROR "the README's GIT_TAG ${tag} is neither `main` nor a tag of this checkout "
                      "(tags: ${tags})")
endif()

# 3. The user's project: the block as printed, then the program linked as the README says, with
# the strict warning set and llmjson's headers as system headers (tests/cmake/consumer.cmake):
# the FetchContent way in, as the other ways in are checked.
file(COPY "${SOURCE_DIR}/tests/cmake/main.cpp" DESTINATION "${WORK_DIR}/consumer")
file(WRITE "${WORK_DIR}/consumer/CMakeLists.txt" "cmake_minimum_required(VERSION 3.21)
project(llmjson_readme_fetch_content_test LANGUAGES CXX)
${block}
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE llmjson::llmjson)
include(\"${SOURCE_DIR}/tests/cmake/consumer.cmake\")
llmjson_consumer(consumer SYSTEM)
")
set(options -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
if(MAKE_PROGRAM)
  list(APPEND options "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(NLOHMANN_JSON_DIR)
  list(APPEND options "-Dnlohmann_json_DIR=${NLOHMANN_JSON_DIR}")
endif()
run("${CMAKE_COMMAND}" -S consumer -B consumer/build ${options})
run("${CMAKE_COMMAND}" --build consumer/build)
execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${WORK_DIR}/consumer/build/_deps/llmjson-src"
  rev-parse HEAD OUTPUT_VARIABLE fetched OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT fetched STREQUAL snapshot)
  message(FATAL_ERROR "FetchContent checked out '${fetched}', not the local repository's "
                      "${snapshot}")
endif()
run(consumer/build/consumer)
