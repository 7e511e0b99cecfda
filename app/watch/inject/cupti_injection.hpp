#pragma once
// The entry point of libxferlab_watch.so: the CUDA driver loads the library named by
// CUDA_INJECTION64_PATH when the program initializes CUDA and calls InitializeInjection (the
// mechanism of CUPTI's own injection samples). From there on every memcpy and memset API call
// (runtime and driver) and their activity records go to this process's record file
// ($XFERLAB_WATCH_DIR/<pid>.xwatch); an exit handler flushes CUPTI's buffers and writes XW_END.
// What cannot be set up (no folder, another CUPTI subscriber) is said once on stderr and as an
// XW_NOTE, and the program runs on untraced.
extern "C" {
__attribute__((visibility("default"))) int InitializeInjection(void);
}
