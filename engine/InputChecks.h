// Checks of the untrusted grids a caller hands the LibTorch module (ForwardInputs, LossRequest):
// shapes that agree with input_ids, ids inside the vocabulary, size caps. Plain C++, no torch.
// Every check throws std::runtime_error naming the grid and, for ids, the row and position.
#pragma once
#include "core/forward/ForwardEngine.h"

#include <cstdint>

namespace maskscope::engine {

// g has input_ids' shape (an empty g passes when optional).
void validateGrid(const IntGrid& g, const IntGrid& ids, const char* name, bool optional);
// Every value of g in [0, vocab), or -100 where allowIgnore.
void validateIds(const IntGrid& g, int64_t vocab, const char* name, bool allowIgnore);
// A forward's input: non-empty input_ids within the length and token caps, the other grids alike.
void validateInputs(const ForwardInputs& in, int64_t vocab);
// A loss request: the inputs with labels, roles and every variant's grids.
void validateLossRequest(const LossRequest& req, int64_t vocab);

} // namespace maskscope::engine
