// The session's BERT aside (the teaching step on BERT's mask): the selected row as BERT's masking
// corrupts it and the bidirectional mask, recomputed whenever the batch changes, so the strip, the
// grid and the step's text read the same numbers.
#include "core/commands/MaskedLmCollate.h"
#include "core/util/Error.h"
#include "ui/shell/Session.h"

namespace maskscope {

void Session::setMaskedLmAside(bool on) {
  if (on == maskedLmAside_) return;
  maskedLmAside_ = on;
  Q_EMIT batchChanged(); // judgeAttention (connected first) recomputes; the views redraw
}

void Session::judgeMaskedLm() {
  maskedLm_.reset();
  bidirectional_.reset();
  if (!maskedLmAside_ || !hasBatch() || batchRow_ < 0 || batchRow_ >= batch_.batchSize()) return;
  try {
    const std::shared_ptr<const Tokenizer> tokenizer = hasTokenizer() ? tokenizerPtr() : nullptr;
    maskedLm_ = maskedLmRow(batch_, batchRow_, maskedLmOptionsFor(batch_, tokenizer.get(), 0));
    bidirectional_ = bidirectionalMask(batch_);
  } catch (const Error& e) {
    maskedLm_.reset();
    bidirectional_.reset();
    Q_EMIT errorOccurred(QString::fromStdString(e.message()));
  }
}

} // namespace maskscope
