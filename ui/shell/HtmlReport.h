// The self-contained HTML report of the selected row (File > Export HTML report): the token strip
// with runs of pads folded into one chip, the attention grid image, the loss breakdown (named as
// measured or as the loss view's example values) and the lint findings. Colours come from the palette.
#pragma once
#include <QImage>
#include <QString>

namespace maskscope {

class Session;
struct LintReport;
struct LossBreakdown;

// The loss section: the breakdown and where its per-token losses come from.
struct ReportLoss {
  const LossBreakdown* breakdown = nullptr;
  bool measured = false; // from a model's forward pass; false: the loss view's example per-token losses
  QString source;        // "model builtin:tiny", or the example values ("prompt 2.00, reply 1.00, pad 0.05")
};

// Runs of at least this many consecutive pads with the same label and attention bit become one chip.
inline constexpr int kFoldPadRun = 3;

// lint may be null; loss.breakdown may be null; grid may be a null image.
QString htmlReport(const Session& session, const LintReport* lint, const ReportLoss& loss, const QImage& grid);

} // namespace maskscope
