# llmjson: installs the build tree BUILD_DIR into a fresh PREFIX (cmake -P, the find_package fixture)
# SPDX-License-Identifier: MIT
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} --prefix ${PREFIX} failed: ${rc}")
endif()
