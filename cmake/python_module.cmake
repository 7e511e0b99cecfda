# The extension module xferlab._core (`import xferlab` in a user's program: the build's python/
# folder on PYTHONPATH, or `pip install .`): app/module/ext/core.cpp on the libraries of the layers
# it stands on (module, engine and below, docs/architecture.md), so that the module is built from
# those targets' sources and loads without xferlab's other libraries (SQLite, TOML++, CUPTI,
# libpython). Included by app/CMakeLists.txt once xfer_module exists, also when
# XFER_PYTHON_MODULE_ONLY is on (pyproject.toml).
#
# With the tests, a second build of the same module, xferlab_core_testing, goes to
# python-testing/xferlab: the same bindings plus the submodule _testing (app/module/testing: the
# fake device and its fault injection), which the installed module never has.

# xferlab_module(TARGET DIR SOURCES file... LIBRARIES lib...): the package in DIR, its Python
# files and the module built from the sources (its entry point) and the libraries.
function(xferlab_module target dir)
    cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "SOURCES;LIBRARIES")
    pybind11_add_module(${target} MODULE ${arg_SOURCES})
    set_target_properties(${target} PROPERTIES OUTPUT_NAME _core
        LIBRARY_OUTPUT_DIRECTORY "${dir}")
    target_link_libraries(${target} PRIVATE ${arg_LIBRARIES} xfer_warnings)
    # Only what the module's code calls stays a dependency of the .so.
    target_link_options(${target} PRIVATE LINKER:--as-needed)
    file(GLOB _package_files CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/python/xferlab/*.py"
        "${PROJECT_SOURCE_DIR}/python/xferlab/*.pyi" "${PROJECT_SOURCE_DIR}/python/xferlab/py.typed")
    add_custom_command(TARGET ${target} POST_BUILD
        COMMAND ${CMAKE_COMMAND} -E copy_if_different ${_package_files} "${dir}"
        COMMENT "xferlab package: python/xferlab/*.py, the stub and py.typed beside ${target}")
endfunction()

set(XFER_PYTHON_PACKAGE_DIR "${PROJECT_BINARY_DIR}/python/xferlab")
xferlab_module(xferlab_core "${XFER_PYTHON_PACKAGE_DIR}"
    SOURCES "${PROJECT_SOURCE_DIR}/app/module/ext/core.cpp" LIBRARIES xfer_module)

if(XFER_BUILD_TESTS)
    set(XFER_PYTHON_TESTING_DIR "${PROJECT_BINARY_DIR}/python-testing/xferlab")
    file(GLOB _testing_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/app/module/testing/*.cpp")
    xferlab_module(xferlab_core_testing "${XFER_PYTHON_TESTING_DIR}"
        SOURCES ${_testing_sources} LIBRARIES xfer_module xfer_engine_fake)
endif()

# pip install . (scikit-build-core): the package is the module and its Python files.
if(SKBUILD)
    file(GLOB _package_files CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/python/xferlab/*.py"
        "${PROJECT_SOURCE_DIR}/python/xferlab/*.pyi" "${PROJECT_SOURCE_DIR}/python/xferlab/py.typed")
    install(TARGETS xferlab_core LIBRARY DESTINATION xferlab)
    install(FILES ${_package_files} DESTINATION xferlab)
endif()
