// A joinable thread with an explicit stack size (kWorkerStackBytes by default), for the worker
// pools of the commands: std::thread cannot set one, and the platform default depends on ulimit.
#pragma once
#include "core/util/StackSizes.h"

#include <functional>
#include <pthread.h>

namespace maskscope {

class WorkerThread {
public:
  // Starts fn on a new thread with stackBytes of stack; throws Error when the thread cannot start.
  explicit WorkerThread(std::function<void()> fn, std::size_t stackBytes = kWorkerStackBytes);
  WorkerThread(WorkerThread&& other) noexcept;
  WorkerThread& operator=(WorkerThread&&) = delete;
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;
  ~WorkerThread(); // joins

  bool joinable() const { return started_; }
  void join();

private:
  pthread_t thread_{};
  bool started_ = false;
};

} // namespace maskscope
