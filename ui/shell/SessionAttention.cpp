// The session's attention implementation (View > Attention implementation, snapshot
// --attn-implementation): the effective mask of the batch shown under it and the transformers rule
// that decided it, for the grid, the softmax view, the loss run and the status line.
#include "core/util/Error.h"
#include "ui/shell/Session.h"

namespace maskscope {

bool Session::setAttnImplementation(const QString& name) {
  if (!name.isEmpty() && !attnImplementationFromName(name.toStdString())) {
    Q_EMIT errorOccurred(QStringLiteral("unknown attention implementation \"%1\" (one of %2)")
                             .arg(name, QString::fromStdString(attnImplementationList())));
    return false;
  }
  if (name == attnName_) return true;
  attnName_ = name;
  judgeAttention();
  Q_EMIT batchChanged(); // the grid, softmax and loss views redraw with the new mask
  return true;
}

namespace {

// Does any implementation other than the chosen one apply another mask to the batch (or refuse it)?
bool masksDiffer(const Batch& b, const EffectiveMask& chosen) {
  for (AttnImplementation impl : kAttnImplementations) {
    if (impl == chosen.implementation) continue;
    try {
      const EffectiveMask other = effectiveAttention(b, impl);
      if (other.segments != chosen.segments || other.cells != chosen.cells) return true;
    } catch (const Error&) {
      return true;
    }
  }
  return false;
}

} // namespace

void Session::judgeAttention() {
  judgeMaskedLm();
  effective_.reset();
  attentionRule_.clear();
  attentionMatters_ = false;
  if (!hasBatch()) {
    Q_EMIT attentionChanged();
    return;
  }
  attnChoice_ = chooseAttnImplementation(batch_, attnName_.toStdString());
  const QString name = QString::fromLatin1(attnImplementationName(attnChoice_.implementation));
  const QString how =
      attnChoice_.assumed ? QStringLiteral(" (assumed: %1)").arg(QString::fromStdString(attnChoice_.why)) : QString();
  try {
    effective_ = effectiveAttention(batch_, attnChoice_.implementation);
    attentionRule_ =
        QStringLiteral("attention: %1%2 \u2014 %3").arg(name, how, QString::fromStdString(effective_->rule));
    attentionMatters_ = !attnChoice_.assumed || masksDiffer(batch_, *effective_);
    if (bidirectional_) { // the grid draws the aside's mask: its line says so
      attentionRule_ =
          QStringLiteral("attention (the BERT aside): %1").arg(QString::fromStdString(bidirectional_->rule));
      attentionMatters_ = true;
    }
  } catch (const Error& e) {
    attentionMatters_ = true;
    attentionRule_ = QStringLiteral("attention: %1%2 \u2014 cannot run this batch: %3")
                         .arg(name, how, QString::fromStdString(e.message()));
  }
  Q_EMIT attentionChanged();
}

Batch Session::modelBatch() const {
  Batch b = batch_;
  if (!effective_) return b;
  b.attentionMask = effective_->segmentIdMask();
  b.attentionMask4d.clear();
  b.attentionMaskGiven = true;
  return b;
}

} // namespace maskscope
