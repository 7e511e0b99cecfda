# Sanitizer and fuzzing builds (issue 6). Included by the top-level CMakeLists.txt before any
# target is defined, so that the flags reach every target: a sanitizer only sees what was
# compiled with it, and a fuzzer only gets coverage from what was compiled for it.
#
#   -DXFER_SANITIZE=address,undefined   ASan + UBSan (+ LSan); UBSan findings abort
#   -DXFER_SANITIZE=thread              TSan
#   -DXFER_FUZZ=ON                      libFuzzer targets in tests/fuzz (clang; implies
#                                       address,undefined and coverage for every library)
#
# Run-time defaults (suppression files under tests/sanitizers/, abort on the first UBSan
# finding) are compiled into every executable by xfer_sanitizer_defaults() at the end of the
# top-level CMakeLists.txt, so that ctest, the integration tests' xferlab child processes and
# the fuzzers need no environment; *SAN_OPTIONS from the environment still override them.

set(XFER_SANITIZE "" CACHE STRING
    "Sanitizers for every target: address,undefined | thread | empty (none)")
option(XFER_FUZZ "Build the libFuzzer targets in tests/fuzz (needs clang)" OFF)

if(XFER_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
        message(FATAL_ERROR "XFER_FUZZ needs clang (libFuzzer): configure with "
                            "-DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14")
    endif()
    if(XFER_SANITIZE STREQUAL "")
        set(XFER_SANITIZE "address,undefined" CACHE STRING "" FORCE)
    elseif(NOT XFER_SANITIZE STREQUAL "address,undefined")
        message(FATAL_ERROR "XFER_FUZZ runs under address,undefined, not '${XFER_SANITIZE}'")
    endif()
endif()

set(XFER_SANITIZER_FLAGS "")
if(XFER_SANITIZE STREQUAL "address,undefined")
    # UBSan does not recover: a finding fails the test or the fuzz run instead of being printed
    # and forgotten. float-divide-by-zero is not in "undefined" for clang; statistics divide by
    # measured times, so ask for it explicitly.
    set(XFER_SANITIZER_FLAGS -fsanitize=address,undefined,float-divide-by-zero
                             -fno-sanitize-recover=all)
elseif(XFER_SANITIZE STREQUAL "thread")
    set(XFER_SANITIZER_FLAGS -fsanitize=thread)
elseif(NOT XFER_SANITIZE STREQUAL "")
    message(FATAL_ERROR "XFER_SANITIZE must be address,undefined or thread, not '${XFER_SANITIZE}'")
endif()

if(XFER_SANITIZER_FLAGS)
    if(XFER_HAVE_CUDA)
        # Supported and checked builds use -DXFER_WITH_CUDA=OFF (docs/reliability.md).
        message(WARNING "xferlab: ${XFER_SANITIZE} build with the CUDA backend is untested")
    endif()
    # Frame pointers: readable stacks in reports at -O1 and above.
    add_compile_options(${XFER_SANITIZER_FLAGS} -fno-omit-frame-pointer)
    add_link_options(${XFER_SANITIZER_FLAGS})
    if(XFER_FUZZ)
        # Coverage counters in every library the fuzz targets link; only the fuzz targets
        # themselves link libFuzzer's main (-fsanitize=fuzzer, tests/fuzz/CMakeLists.txt).
        add_compile_options(-fsanitize=fuzzer-no-link)
    endif()
    message(STATUS "xferlab: sanitizers ${XFER_SANITIZE}")
endif()

# Adds the run-time defaults to every executable target defined so far (call it last).
function(xfer_sanitizer_defaults)
    if(NOT XFER_SANITIZER_FLAGS)
        return()
    endif()
    set(XFER_SUPPRESSIONS_DIR "${PROJECT_SOURCE_DIR}/tests/sanitizers")
    configure_file("${PROJECT_SOURCE_DIR}/tests/sanitizers/sanitizer_defaults.cpp.in"
                   "${PROJECT_BINARY_DIR}/sanitizer_defaults.cpp" @ONLY)
    set(_dirs "${PROJECT_SOURCE_DIR}")
    set(_executables "")
    while(_dirs)
        list(POP_FRONT _dirs _dir)
        get_property(_sub DIRECTORY "${_dir}" PROPERTY SUBDIRECTORIES)
        list(APPEND _dirs ${_sub})
        get_property(_targets DIRECTORY "${_dir}" PROPERTY BUILDSYSTEM_TARGETS)
        foreach(_t IN LISTS _targets)
            get_target_property(_type ${_t} TYPE)
            if(_type STREQUAL "EXECUTABLE")
                target_sources(${_t} PRIVATE "${PROJECT_BINARY_DIR}/sanitizer_defaults.cpp")
                list(APPEND _executables ${_t})
            endif()
        endforeach()
    endwhile()
    list(LENGTH _executables _n)
    message(STATUS "xferlab: sanitizer run-time defaults in ${_n} executables")
endfunction()
