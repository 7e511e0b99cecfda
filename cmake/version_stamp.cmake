# The source tree's `git describe` (with -dirty), written into OUT at every build, not at
# configure time: a build folder configured once and rebuilt after later commits named the
# configure's commit in every results file and `--version` (xferlab 0.1.0 (2b02d70-dirty) on a
# tree at fc021f5). OUT is rewritten only where the text changed, so an unchanged tree
# recompiles nothing.
#
#   cmake -DSOURCE_DIR=<tree> -DOUT=<file.h> -P cmake/version_stamp.cmake
if(NOT SOURCE_DIR OR NOT OUT)
    message(FATAL_ERROR "version_stamp.cmake: SOURCE_DIR and OUT are required")
endif()
execute_process(COMMAND git describe --always --dirty --tags
    WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE describe
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT describe)
    set(describe "unknown")  # no git, or not a repository (a source archive, pip's sdist)
endif()
set(text "// Written by cmake/version_stamp.cmake at build time: the tree that was built.\n")
string(APPEND text "#define XFER_GIT_DESCRIBE \"${describe}\"\n")
set(old "")
if(EXISTS "${OUT}")
    file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
    file(WRITE "${OUT}" "${text}")
endif()
