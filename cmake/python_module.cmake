# The extension module xferlab._core (`import xferlab` in a user's program: the build's
# python/ folder on PYTHONPATH, or `pip install .`): the same engine and bindings as xferlab's
# own, compiled from the few sources they need, so that the module loads without xferlab's other
# libraries (SQLite, TOML++, CUPTI, OpenSSL, libpython). Included by app/CMakeLists.txt, and by
# the top level alone when XFER_PYTHON_MODULE_ONLY is on (pyproject.toml).
set(_app "${PROJECT_SOURCE_DIR}/app")
set(_engine_sources
    backend/staging_engine.cpp backend/staging_units.cpp backend/host_staging_device.cpp
    backend/fake_copy_platform.cpp backend/copy_platform.cpp
    backend/staging_stores.cpp backend/staging_registry.cpp backend/timed_block_hooks.cpp
    memory/streaming_copy.cpp util/units.cpp util/process_id.cpp util/suggest.cpp system/thread_probe.cpp system/thread_info.cpp system/signal_names.cpp
    system/hostname.cpp system/cpu_topology.cpp util/format.cpp util/version.cpp)
if(XFER_HAVE_CUDA)
    list(APPEND _engine_sources backend/cuda/cuda_copy_platform.cpp
        backend/cuda/staging_device.cpp backend/cuda/topology.cpp backend/cuda/cuda_errors.cpp
        backend/cuda/availability.cpp backend/cuda/correlation_slot.cpp)
endif()
list(TRANSFORM _engine_sources PREPEND "${_app}/")
file(GLOB _pyapi_sources CONFIGURE_DEPENDS "${_app}/pyapi/*.cpp")
pybind11_add_module(xferlab_core MODULE "${_app}/pyapi/ext/core.cpp" ${_pyapi_sources}
    ${_engine_sources})
set(XFER_PYTHON_PACKAGE_DIR "${PROJECT_BINARY_DIR}/python/xferlab")
set_target_properties(xferlab_core PROPERTIES OUTPUT_NAME _core
    LIBRARY_OUTPUT_DIRECTORY "${XFER_PYTHON_PACKAGE_DIR}" UNITY_BUILD OFF)
target_include_directories(xferlab_core PRIVATE "${_app}")
target_link_libraries(xferlab_core PRIVATE fmt::fmt nlohmann_json::nlohmann_json
    Threads::Threads xfer_warnings)
target_compile_definitions(xferlab_core PRIVATE
    XFER_VERSION="${PROJECT_VERSION}" XFER_GIT_DESCRIBE="${XFER_GIT_DESCRIBE}")
if(XFER_HAVE_CUDA)
    target_compile_definitions(xferlab_core PRIVATE XFER_HAVE_CUDA=1)
    target_link_libraries(xferlab_core PRIVATE CUDA::cudart)
endif()
# Only what the module's code calls stays a dependency of the .so.
target_link_options(xferlab_core PRIVATE LINKER:--as-needed)
# The package's Python files beside the module: build/python/xferlab is the package.
file(GLOB _package_files CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/python_lib/xferlab/*.py")
add_custom_command(TARGET xferlab_core POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${_package_files} "${XFER_PYTHON_PACKAGE_DIR}"
    COMMENT "xferlab package: python_lib/xferlab/*.py beside _core")
# pip install . (scikit-build-core): the package is the module and its Python files.
if(SKBUILD)
    install(TARGETS xferlab_core LIBRARY DESTINATION xferlab)
    install(FILES ${_package_files} DESTINATION xferlab)
endif()
