// WorkerThread: pthread_create with an explicit stack size (see StackSizes.h for why).
#include "core/util/WorkerThread.h"

#include "core/util/Error.h"

#include <cstring>
#include <exception>
#include <memory>
#include <utility>

namespace maskscope {

namespace {
void* runWorker(void* arg) {
  std::unique_ptr<std::function<void()>> fn(static_cast<std::function<void()>*>(arg));
  try {
    (*fn)();
  } catch (...) {
    std::terminate(); // as std::thread does: a worker must catch its own errors
  }
  return nullptr;
}
} // namespace

WorkerThread::WorkerThread(std::function<void()> fn, std::size_t stackBytes) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) throw Error("cannot start a worker thread: pthread_attr_init failed");
  int rc = pthread_attr_setstacksize(&attr, stackBytes);
  auto* arg = new std::function<void()>(std::move(fn));
  if (rc == 0) rc = pthread_create(&thread_, &attr, &runWorker, arg);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    delete arg;
    throw Error("cannot start a worker thread with a " + std::to_string(stackBytes >> 20) +
                " MiB stack: " + std::strerror(rc));
  }
  started_ = true;
}

WorkerThread::WorkerThread(WorkerThread&& other) noexcept
    : thread_(other.thread_), started_(std::exchange(other.started_, false)) {}

WorkerThread::~WorkerThread() { join(); }

void WorkerThread::join() {
  if (!started_) return;
  pthread_join(thread_, nullptr);
  started_ = false;
}

} // namespace maskscope
