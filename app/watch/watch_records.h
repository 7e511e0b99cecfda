/* The on-disk records of `xferlab watch`: what the injected library (libxferlab_watch.so, loaded
 * by the CUDA driver through CUDA_INJECTION64_PATH) writes, one file per process, and what
 * xferlab reads back after the program ends. Plain C, so that the library, the tests' fake
 * producer and the reader agree on one layout whatever compiled them.
 *
 * A file is a 64-byte header, then 64-byte records. Each record starts with a word holding
 * XW_COMMIT in its high half and the record's type in its low half, stored last (release) once
 * the other 60 bytes are in place: a record whose first word lacks XW_COMMIT was never finished
 * (the process died while writing it) and is not read. The writer maps the file in segments
 * (MAP_SHARED) and commits each record into the page cache, so a record is on disk, as far as
 * any later reader of the file can tell, the moment it is committed: a crash, SIGKILL or
 * os._exit of the program loses nothing committed (a power cut may; nothing is fsync'd while
 * the program runs). Space is reserved with posix_fallocate before it is mapped, so a full disk
 * stops the recording (counted in XW_END) instead of raising SIGBUS in the program.
 *
 * Host times are CLOCK_MONOTONIC nanoseconds, the clock of every xferlab timestamp. Device
 * times are CUPTI's: on CLOCK_MONOTONIC where XW_CLOCK says the timestamp callback took,
 * else CUPTI's clock, which XW_CLOCK's offset converts. */
#ifndef XFER_WATCH_RECORDS_H
#define XFER_WATCH_RECORDS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XW_MAGIC "XFWATCH"  /* 7 characters and the terminating zero: the header's first 8 */
#define XW_VERSION 1u
#define XW_RECORD_BYTES 64u
#define XW_COMMIT 0x5857u   /* "XW" */
#define XW_FILE_SUFFIX ".xwatch"

/* The environment the library reads (xferlab watch sets them). */
#define XW_ENV_DIR "XFERLAB_WATCH_DIR"            /* the folder of the per-process files */
#define XW_ENV_SAMPLE_BYTES "XFERLAB_WATCH_SAMPLE_BYTES" /* NUMA sampling from this size on */

enum xw_type {
    XW_API = 1,       /* a memcpy or memset API call (runtime or driver), at its return */
    XW_MEMCPY = 2,    /* a memcpy activity record (CUPTI_ACTIVITY_KIND_MEMCPY or MEMCPY2) */
    XW_MEMSET = 3,    /* a memset activity record */
    XW_THREAD = 4,    /* a thread's first API call: its name and scheduling */
    XW_AFFINITY = 5,  /* part of that thread's CPU affinity */
    XW_NAME = 6,      /* an API function's name, once per (domain, callback id) */
    XW_DEVICE = 7,    /* a device the process used: PCI bus id, nearest NUMA node */
    XW_NUMA = 8,      /* the NUMA nodes of sampled host pages of an API call */
    XW_NOTE = 9,      /* a sentence the library has to say (CUPTI unavailable, ...) */
    XW_CLOCK = 10,    /* how device times are put on CLOCK_MONOTONIC */
    XW_END = 11       /* the library's exit handler ran: the counts of what it could not keep */
};

enum xw_domain { XW_RUNTIME = 1, XW_DRIVER = 2 };

/* XW_API flags */
#define XW_API_MEMSET 1u      /* a memset call (else a memcpy call) */
#define XW_API_HOST_SRC 2u    /* the call named a host source (host_ptr is it) */
#define XW_API_HOST_DST 4u    /* the call named a host destination */

/* XW_MEMCPY flags */
#define XW_COPY_PEER 1u       /* a MEMCPY2 (peer-to-peer) record */

typedef struct xw_header {
    char magic[8];
    uint32_t version;
    uint32_t record_bytes;
    int32_t pid;
    int32_t ppid;
    int64_t start_monotonic_ns;
    int64_t start_realtime_ns;
    uint8_t reserved[24];
} xw_header;

typedef struct xw_api {
    uint32_t correlation; /* CUPTI's correlation id of this call */
    uint32_t outer;       /* the outermost memcpy/memset call around it on this thread, 0: none */
    uint32_t cbid;        /* CUPTI callback id within the domain */
    uint8_t domain;       /* enum xw_domain */
    uint8_t flags;        /* XW_API_* */
    uint8_t memcpy_kind;  /* cudaMemcpyKind where the call names one, 255: none */
    uint8_t reserved0;
    int32_t cpu;          /* sched_getcpu() at entry */
    int32_t result;       /* the call's return code (cudaError_t / CUresult) */
    int64_t start_ns;
    int64_t end_ns;
    uint64_t bytes;       /* as the call asked, 0 where its parameters are not read */
    uint64_t host_ptr;    /* the host side it named (XW_API_HOST_*), 0: none */
} xw_api;

typedef struct xw_memcpy {
    uint32_t correlation;         /* the driver call's id (CUPTI correlationId) */
    uint32_t runtime_correlation; /* the runtime call's id, 0 where CUPTI gives none */
    uint64_t start;
    uint64_t end;
    uint64_t bytes;
    uint32_t device;
    uint32_t context;
    uint32_t stream;
    uint8_t copy_kind; /* CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH, 8 DtoD, 9 HtoH, 10 PtoP */
    uint8_t src_kind;  /* CUpti_ActivityMemoryKind: 1 pageable, 2 pinned, 3 device, 5 managed */
    uint8_t dst_kind;
    uint8_t flags;     /* XW_COPY_* */
    uint32_t src_device; /* peer records */
    uint32_t dst_device;
} xw_memcpy;

typedef struct xw_memset {
    uint32_t correlation;
    uint32_t value;
    uint64_t start;
    uint64_t end;
    uint64_t bytes;
    uint32_t device;
    uint32_t context;
    uint32_t stream;
    uint8_t memory_kind;
    uint8_t reserved[11];
} xw_memset;

typedef struct xw_thread {
    int32_t cpu;        /* at its first call */
    int32_t policy;     /* sched_getscheduler */
    int32_t priority;   /* sched_param's priority */
    int32_t nice;
    char name[16];      /* /proc/self/task/TID/comm */
    int64_t first_ns;
    uint8_t reserved[16];
} xw_thread;

typedef struct xw_affinity {
    uint32_t first_cpu; /* bits[0] bit 0 is this CPU */
    uint32_t reserved;
    uint8_t bits[48];
} xw_affinity;

typedef struct xw_name {
    uint8_t domain;
    uint8_t reserved[3];
    uint32_t cbid;
    char name[48];
} xw_name;

typedef struct xw_device {
    uint32_t device;
    int32_t numa_node;  /* the node sysfs gives its PCI function, -1: none */
    char pci_bus_id[16];
    char name[32];
} xw_device;

#define XW_NUMA_PAGES 48
typedef struct xw_numa {
    uint32_t correlation; /* of the XW_API call whose host pages were sampled */
    uint16_t pages;       /* entries of node[] filled */
    uint16_t reserved;
    int8_t node[XW_NUMA_PAGES]; /* move_pages' status: a node, or -errno (-2: not present) */
} xw_numa;

typedef struct xw_note {
    char text[56];
} xw_note;

typedef struct xw_clock {
    uint8_t timestamp_callback; /* 1: device times are on CLOCK_MONOTONIC already */
    uint8_t reserved[7];
    int64_t offset_ns;          /* CLOCK_MONOTONIC - CUPTI clock, sampled at start */
    uint8_t reserved2[40];
} xw_clock;

typedef struct xw_end {
    uint64_t dropped;       /* activity records CUPTI dropped */
    uint64_t incomplete;    /* activity records without timestamps */
    uint64_t extra_buffers; /* activity buffers refused past the pool (their records dropped) */
    uint64_t not_written;   /* records the library could not write (full disk) */
    int64_t end_ns;
    uint8_t reserved[16];
} xw_end;

/* One 64-byte slot: the commit word, the thread that wrote it, then the body. */
typedef struct xw_record {
    uint32_t commit;  /* (XW_COMMIT << 16) | type, stored last */
    int32_t tid;      /* the writing thread (for XW_API, XW_THREAD, XW_AFFINITY: the caller) */
    union {
        xw_api api;
        xw_memcpy memcpy;
        xw_memset memset;
        xw_thread thread;
        xw_affinity affinity;
        xw_name name;
        xw_device device;
        xw_numa numa;
        xw_note note;
        xw_clock clock;
        xw_end end;
        uint8_t bytes[56];
    } u;
} xw_record;

#ifdef __cplusplus
}  /* extern "C" */
static_assert(sizeof(xw_header) == 64, "xw_header is one slot");
static_assert(sizeof(xw_record) == XW_RECORD_BYTES, "xw_record is one slot");
#else
_Static_assert(sizeof(xw_header) == 64, "xw_header is one slot");
_Static_assert(sizeof(xw_record) == XW_RECORD_BYTES, "xw_record is one slot");
#endif

#endif /* XFER_WATCH_RECORDS_H */
