# libxferlab_watch.so: what the CUDA driver injects into a watched program (CUDA_INJECTION64_PATH,
# docs/watch.md). Only watch/'s writer and capture and watch/inject's CUPTI side, with nothing of
# the rest of xferlab: it runs inside someone else's process. Built beside the xferlab executable,
# where `xferlab watch` looks for it. Without a toolkit (or in a sanitizer build, whose runtime
# an uninstrumented program cannot load) there is none, and `xferlab watch` says so.
if(XFER_HAVE_CUDA AND NOT XFER_SANITIZER_FLAGS)
    file(GLOB _watch_inject_srcs CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/app/watch/inject/*.cpp")
    add_library(xferlab_watch SHARED
        "${PROJECT_SOURCE_DIR}/app/watch/record_writer.cpp"
        "${PROJECT_SOURCE_DIR}/app/watch/capture.cpp"
        ${_watch_inject_srcs})
    target_include_directories(xferlab_watch PRIVATE "${PROJECT_SOURCE_DIR}/app")
    target_link_libraries(xferlab_watch PRIVATE CUDA::cupti Threads::Threads ${CMAKE_DL_LIBS}
        xfer_warnings)
    # Only InitializeInjection is exported; the C++ runtime is linked statically so that the
    # library brings no libstdc++ requirement into a program built against an older one.
    set_target_properties(xferlab_watch PROPERTIES
        CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
        LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}"
        BUILD_RPATH "$<TARGET_FILE_DIR:CUDA::cupti>"
        INSTALL_RPATH "$<TARGET_FILE_DIR:CUDA::cupti>")
    target_link_options(xferlab_watch PRIVATE -static-libstdc++ -static-libgcc
        -Wl,--exclude-libs,ALL -Wl,--no-undefined)
    set(XFER_WATCH_LIBRARY "$<TARGET_FILE:xferlab_watch>")
endif()
