// jemalloc's options for the cctx executables, read by jemalloc at its first allocation through
// this well-known symbol (an executable's definition takes precedence over the library's).
//
// thp:always: jemalloc marks its memory for transparent huge pages (the kernel's default mode,
// "madvise", grants them only to memory marked so). An analysis writes large per-value and
// per-node arrays once; in 4 KiB pages a 100k-node run took about 97,000 page faults, which cost
// this VM about a fifth of the pipeline's time; in 2 MiB pages about 5,000. Peak RSS grows by a
// few percent (188 -> 200 MB at 100k nodes).
//
// dirty_decay_ms:-1: pages an analysis frees stay with the process for the next one instead of
// being handed back to the kernel ten seconds later, so a process that analyses again (a command
// comparing runs, the benchmark's rounds) reuses them rather than faulting in pages the kernel
// must zero again. On this VM first touches cost about 2 ms per MB: with the default decay, the
// 1M-node benchmark's later rounds (12 s apart, ONNX's inference runs between them) found their
// pages purged and took 4.4 s instead of 2.7 s. The cost is that RSS stays at the process's peak
// until it exits; the Python module does not link jemalloc and keeps the interpreter's malloc.
//
// narenas:1: every thread allocates from arena 0. By default each new thread took an arena of its
// own (cctx analyze has three: main, the large-stack thread that runs the command, the one that
// loads the plugins), each with its own partly used huge pages; and the extent hooks that map
// jemalloc's memory in whole huge pages (jemalloc_extents.cpp) are installed before main on the
// arenas that exist then, which under narenas:1 is the only one. The threads allocate little at
// the same time (the plugins load while the model is parsed), so one arena costs no waiting.
extern "C" {
// NOLINTNEXTLINE: the name and type are jemalloc's interface.
const char* malloc_conf = "thp:always,metadata_thp:always,dirty_decay_ms:-1,narenas:1";
}
