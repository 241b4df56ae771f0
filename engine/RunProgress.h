// Progress and cancellation through a RunControl (core/forward/ForwardEngine.h), shared by model
// loading, the forward pass and the loss analysis inside the LibTorch module.
#pragma once
#include "core/forward/ForwardEngine.h"

#include <stdexcept>
#include <string>

namespace maskscope::engine {

// Throws "cancelled" once the caller has set control.cancel.
inline void checkCancel(const RunControl& c) {
  if (c.cancel && c.cancel->load()) throw std::runtime_error("cancelled");
}

inline void report(const RunControl& c, double fraction, const std::string& text) {
  if (c.progress) c.progress(fraction, text);
}

} // namespace maskscope::engine
