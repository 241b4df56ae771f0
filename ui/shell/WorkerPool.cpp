// workerPool(): Qt's global thread pool, given the workers' explicit stack size once.
#include "ui/shell/WorkerPool.h"

#include "core/util/StackSizes.h"

namespace maskscope {

QThreadPool* workerPool() {
  static QThreadPool* const pool = [] {
    QThreadPool* p = QThreadPool::globalInstance();
    p->setStackSize(uint(kWorkerStackBytes));
    return p;
  }();
  return pool;
}

} // namespace maskscope
