#include "cctx/large_stack.hpp"

#include <pthread.h>
#include <signal.h>

#include <exception>
#include <memory>
#include <new>

namespace cctx {

namespace {

struct Job {
  const std::function<void()>* work;
  std::exception_ptr error;
};

void run_job_body(Job* job) {
  // sigaltstack is per thread: without one, a handler for an overflow of this stack has no stack.
  constexpr std::size_t kSignalStackBytes = std::size_t{1} << 16;
  // Left unwritten: its pages are touched only if a signal arrives.
  auto signal_stack = std::make_unique_for_overwrite<char[]>(kSignalStackBytes);
  stack_t alt{};
  alt.ss_sp = signal_stack.get();
  alt.ss_size = kSignalStackBytes;
  ::sigaltstack(&alt, nullptr);
  try {
    (*job->work)();
  } catch (...) {
    job->error = std::current_exception();
  }
  alt.ss_flags = SS_DISABLE;
  ::sigaltstack(&alt, nullptr);
}

void* run_job(void* arg) noexcept {
  auto* job = static_cast<Job*>(arg);
  try {
    run_job_body(job);
  } catch (...) {
    // Out of memory before the work started (its signal stack): an exception must not leave a
    // thread's start routine (std::terminate, SIGABRT).
    job->error = std::make_exception_ptr(std::bad_alloc());
  }
  return nullptr;
}

}  // namespace

void run_with_large_stack(std::size_t bytes, const std::function<void()>& work) {
  Job job{&work, nullptr};
  pthread_attr_t attr;
  if (::pthread_attr_init(&attr) != 0) {
    work();
    return;
  }
  pthread_t thread;
  const bool started = ::pthread_attr_setstacksize(&attr, bytes) == 0 &&
                       ::pthread_create(&thread, &attr, &run_job, &job) == 0;
  ::pthread_attr_destroy(&attr);
  if (!started) {
    work();
    return;
  }
  ::pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace cctx
