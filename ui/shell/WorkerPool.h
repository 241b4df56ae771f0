// The thread pool every background job of the app runs on (QtConcurrent::run(workerPool(), ...)):
// Qt's global pool with an explicit stack size, kWorkerStackBytes (core/util/StackSizes.h).
#pragma once
#include <QThreadPool>

namespace maskscope {

// Lint, the dataset pipeline and model loading render templates and walk parsed JSON on these
// threads, recursing up to the caps of core/util/StackSizes.h; the default stack would depend on
// ulimit -s. The size is set before the pool's first thread starts (it applies to new threads).
QThreadPool* workerPool();

} // namespace maskscope
