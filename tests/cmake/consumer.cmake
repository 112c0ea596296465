# llmjson: what the projects in tests/cmake/<way>/ share: the strict warning set a user's project
# may build with, and a check of how the compiler was given llmjson's include directory
# SPDX-License-Identifier: MIT

# -Wall ... -Wdouble-promotion, and -Wuseless-cast where it exists (g++), as errors.
set(LLMJSON_STRICT_WARNINGS -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow
  -Wnull-dereference -Wold-style-cast -Wdouble-promotion $<$<CXX_COMPILER_ID:GNU>:-Wuseless-cast>
  -Werror)

# llmjson_consumer(TARGET SYSTEM|PLAIN): builds TARGET with the strict warning set, and after each
# build checks the compile command of its sources: SYSTEM, llmjson's headers came in through
# -isystem (a way in that protects a user's warnings); PLAIN, through -I (the headers themselves
# are checked, the check cannot pass because they were hidden).
# The flags and the parsing of compile commands are g++'s and clang's: other compilers only build
# and run the program.
function(llmjson_consumer target how)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    return()
  endif()
  target_compile_options(${target} PRIVATE ${LLMJSON_STRICT_WARNINGS})
  set_target_properties(${target} PROPERTIES EXPORT_COMPILE_COMMANDS ON)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" "-DCOMPILE_COMMANDS=${CMAKE_BINARY_DIR}/compile_commands.json"
            "-DEXPECT=${how}" -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/check_include_kind.cmake"
    VERBATIM)
endfunction()
