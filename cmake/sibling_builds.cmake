# Sibling executables: xferlab built again from this same tree against another CPython, beside
# the main one, for the launchers that run payloads in another kind of interpreter (one process
# links one libpython, so they run their workers in a worker process of a sibling):
#
#   -DXFER_FREE_THREADED_PYTHON=<prefix>/bin/python3.13t  -> xferlab-ft (launcher python-ft)
#   -DXFER_SUBINTERPRETER_PYTHON=<prefix>/bin/python3.13  -> xferlab-py313 (launcher
#       python-subinterp where this xferlab's Python is older than 3.12 or its pybind11 older
#       than 3: sub-interpreters with their own GIL need both)
#   -DXFER_SIBLING_PYBIND11_DIR=<pybind11 3's CMake folder>  for both (tools/fetch-pybind11.sh)
#
# tools/build-free-threaded-python.sh builds the interpreters and tools/bootstrap.sh passes all
# three. Each sibling is an ExternalProject of this source tree, configured like this build
# without its tests, built for the target xferlab alone on every build of this tree (its own
# build tool finds what changed) and copied here under its name. Not in sanitizer builds: the
# interpreters are not instrumented. ${PROJECT_BINARY_DIR}/siblings.json lists the siblings this
# build makes, so that tests know which must be there.
set(XFER_FREE_THREADED_PYTHON "" CACHE FILEPATH
    "A free-threaded CPython 3.13 (bin/python3.13t): builds xferlab-ft for launcher python-ft")
set(XFER_SUBINTERPRETER_PYTHON "" CACHE FILEPATH
    "A CPython 3.13 with its GIL (bin/python3.13): builds xferlab-py313 for python-subinterp")
set(XFER_SIBLING_PYBIND11_DIR "" CACHE PATH
    "pybind11 3's CMake config folder for the sibling executables (tools/fetch-pybind11.sh)")
set(XFER_SIBLING_JOBS "" CACHE STRING
    "Parallel jobs of a sibling's build (empty: its build tool's default)")

include(ExternalProject)

# Checks that `python` is a CPython 3.13 of the kind `free_threaded` (1 or 0) says, naming the
# option that gave it when it is not.
function(xfer_check_sibling_python option python free_threaded)
    if(NOT EXISTS "${python}")
        message(FATAL_ERROR "${option}=${python}: no such file (expected an interpreter, "
                            "e.g. .cache/cpython/free-threaded/bin/python3.13t as "
                            "tools/build-free-threaded-python.sh prints its prefix)")
    endif()
    execute_process(COMMAND "${python}" -c
        "import sys, sysconfig; print('%d.%d %d' % (sys.version_info[0], sys.version_info[1], int(bool(sysconfig.get_config_var('Py_GIL_DISABLED')))))"
        OUTPUT_VARIABLE _out OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc
        ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
        message(FATAL_ERROR "${option}=${python} does not run: ${_err}")
    endif()
    set(_kind "with a GIL")
    if(free_threaded)
        set(_kind "free-threaded")
    endif()
    if(NOT _out STREQUAL "3.13 ${free_threaded}")
        message(FATAL_ERROR "${option}=${python} is Python '${_out}' (version, free-threaded "
                            "0/1); expected 3.13 ${_kind}")
    endif()
endfunction()

set(_xfer_siblings "")
# xfer_sibling(NAME PYTHON [TARGET...]): NAME built against PYTHON, and TARGETs beside it (the
# free-threaded sibling also builds the module, xferlab_core, which a test imports in 3.13t).
function(xfer_sibling name python)
    set(_dir "${PROJECT_BINARY_DIR}/sibling-${name}")
    set(_parallel "")
    if(XFER_SIBLING_JOBS)
        set(_parallel --parallel ${XFER_SIBLING_JOBS})
    endif()
    ExternalProject_Add(${name}_build
        SOURCE_DIR "${PROJECT_SOURCE_DIR}"
        BINARY_DIR "${_dir}"
        CMAKE_GENERATOR "${CMAKE_GENERATOR}"
        CMAKE_CACHE_ARGS
            "-DCMAKE_BUILD_TYPE:STRING=${CMAKE_BUILD_TYPE}"
            "-DCMAKE_C_COMPILER:FILEPATH=${CMAKE_C_COMPILER}"
            "-DCMAKE_CXX_COMPILER:FILEPATH=${CMAKE_CXX_COMPILER}"
            "-DCMAKE_C_FLAGS:STRING=${CMAKE_C_FLAGS}"
            "-DCMAKE_CXX_FLAGS:STRING=${CMAKE_CXX_FLAGS}"
            "-DCMAKE_C_FLAGS_RELWITHDEBINFO:STRING=${CMAKE_C_FLAGS_RELWITHDEBINFO}"
            "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO:STRING=${CMAKE_CXX_FLAGS_RELWITHDEBINFO}"
            "-DCMAKE_PREFIX_PATH:STRING=${CMAKE_PREFIX_PATH}"
            "-DPython_EXECUTABLE:FILEPATH=${python}"
            "-DPYTHON_EXECUTABLE:FILEPATH=${python}"
            "-Dpybind11_DIR:PATH=${XFER_SIBLING_PYBIND11_DIR}"
            "-DXFER_WITH_CUDA:BOOL=${XFER_WITH_CUDA}"
            "-DXFER_WITH_MPI:BOOL=OFF"
            "-DXFER_BUILD_TESTS:BOOL=OFF"
            "-DXFER_UNITY_BUILD:BOOL=${XFER_UNITY_BUILD}"
            "-DXFER_WERROR:BOOL=${XFER_WERROR}"
        BUILD_COMMAND ${CMAKE_COMMAND} --build "${_dir}" --target xferlab ${ARGN} ${_parallel}
        BUILD_ALWAYS ON
        USES_TERMINAL_BUILD ON
        INSTALL_COMMAND ${CMAKE_COMMAND} -E copy "${_dir}/xferlab" "${PROJECT_BINARY_DIR}/${name}"
        BUILD_BYPRODUCTS "${PROJECT_BINARY_DIR}/${name}"
        # The main executable first: on a small machine the sibling waits rather than halves it.
        DEPENDS xferlab)
    list(APPEND _xfer_siblings "\"${name}\": \"${python}\"")
    set(_xfer_siblings "${_xfer_siblings}" PARENT_SCOPE)
endfunction()

if(XFER_FREE_THREADED_PYTHON OR XFER_SUBINTERPRETER_PYTHON)
    if(XFER_SANITIZER_FLAGS)
        message(STATUS "xferlab: no sibling executables in a sanitizer build (the interpreters "
                       "they embed are not instrumented)")
    elseif(NOT XFER_SIBLING_PYBIND11_DIR)
        message(FATAL_ERROR "XFER_FREE_THREADED_PYTHON / XFER_SUBINTERPRETER_PYTHON need "
                            "XFER_SIBLING_PYBIND11_DIR: pybind11 3's CMake folder "
                            "(tools/fetch-pybind11.sh prints it)")
    else()
        if(XFER_FREE_THREADED_PYTHON)
            xfer_check_sibling_python(XFER_FREE_THREADED_PYTHON "${XFER_FREE_THREADED_PYTHON}" 1)
            xfer_sibling(xferlab-ft "${XFER_FREE_THREADED_PYTHON}" xferlab_core)
        endif()
        if(XFER_SUBINTERPRETER_PYTHON)
            xfer_check_sibling_python(XFER_SUBINTERPRETER_PYTHON
                "${XFER_SUBINTERPRETER_PYTHON}" 0)
            xfer_sibling(xferlab-py313 "${XFER_SUBINTERPRETER_PYTHON}")
        endif()
    endif()
endif()
list(JOIN _xfer_siblings ", " _xfer_sibling_list)
file(WRITE "${PROJECT_BINARY_DIR}/siblings.json" "{${_xfer_sibling_list}}\n")
message(STATUS "xferlab: sibling executables {${_xfer_sibling_list}}")
