// HTML report: every count from core (gradedAt, paddingOfRow, the loss breakdown), every colour from
// the palette's light theme (the page is white), example losses named as such.
#include "ui/shell/HtmlReport.h"
#include "core/forward/LossPlan.h"
#include "core/lint/LintReport.h"
#include "core/mask/PaddingDetection.h"
#include "core/mask/RowFacts.h"
#include "core/util/Utf8.h"
#include "ui/shell/Session.h"
#include "ui/widgets/Palette.h"

#include <QBuffer>
#include <cmath>

namespace maskscope {

namespace {

QString css(const QColor& c) { return c.name(); }
QString pale(const QColor& c) { return palette::mix(c, Qt::white, 0.78).name(); }

QString styleSheet() {
  QString s;
  palette::withTheme(palette::Theme::Light, [&] {
    s = QStringLiteral("body{font-family:system-ui,'Noto Sans',sans-serif;margin:2em;color:#1a1a1a;background:#fff}\n"
                       ".strip{display:flex;flex-wrap:wrap;gap:4px}\n"
                       ".chip{border:1px dashed %1;padding:3px 5px;font-family:monospace;min-width:2em}\n"
                       ".chip small{display:block;color:#555}\n.graded{border:3px solid %2}\n"
                       ".pad{background:repeating-linear-gradient(45deg,%3,%3 4px,#fff 4px,#fff 8px)}\n"
                       ".pad.graded{border-color:%4}\n.fold{font-style:italic}\n"
                       ".system{background:%5}.user{background:%6}.assistant{background:%7}.think{background:%8}"
                       ".template{background:%9}\n"
                       "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}\n"
                       ".error{color:%4;font-weight:bold}\n.note{border-left:4px solid %3;padding-left:8px}\n")
            .arg(css(palette::ignored()), css(palette::graded()), pale(palette::padding()), css(palette::gradedPad()),
                 pale(palette::roleColour(PositionKind::System)), pale(palette::roleColour(PositionKind::User)),
                 pale(palette::roleColour(PositionKind::Assistant)), pale(palette::roleColour(PositionKind::Think)),
                 pale(palette::roleColour(PositionKind::Template)));
  });
  return s;
}

// One position's chip, or (count > 1) a folded run of `count` alike pads from t.
QString chip(const Session& s, int64_t t, int64_t count, bool pad, bool graded, int64_t att) {
  const Batch& b = s.batch();
  const int r = s.batchRow();
  const bool haveMeta = size_t(r) < b.meta.size() && int64_t(b.meta[size_t(r)].size()) == b.length();
  QString cls = QStringLiteral("chip");
  if (graded) cls += QStringLiteral(" graded");
  if (pad) cls += QStringLiteral(" pad");
  if (count > 1) cls += QStringLiteral(" fold");
  if (haveMeta && !pad)
    cls += QLatin1Char(' ') + QString::fromLatin1(positionKindName(b.meta[size_t(r)][size_t(t)].kind)).toLower();
  const int64_t label = b.labels.sameShape(b.inputIds) ? b.labels.at(r, t) : kIgnoreIndex;
  // graded-count: ok (names the label at position 0, which gradedAt already ruled out)
  const QString labelText = graded                  ? QStringLiteral("&#10003;L")
                            : label != kIgnoreIndex ? QStringLiteral("L at 0, never scored")
                                                    : QStringLiteral("-100");
  const bool pos = b.positionIds.sameShape(b.inputIds);
  if (count > 1) {
    const int64_t last = t + count - 1;
    return QStringLiteral("<span class=\"%1\" title=\"positions %2-%3, id %4\">&hellip; %5 pads<small>%6 A%7%8 "
                          "&middot; %2-%3</small></span>\n")
        .arg(cls)
        .arg(t)
        .arg(last)
        .arg(b.inputIds.at(r, t))
        .arg(count)
        .arg(labelText)
        .arg(att)
        .arg(pos ? QStringLiteral(" p%1-%2").arg(b.positionIds.at(r, t)).arg(b.positionIds.at(r, last)) : QString());
  }
  const QString text = QString::fromStdString(utf8::visibleWhitespace(s.tokenText(b.inputIds.at(r, t)).toStdString()));
  return QStringLiteral("<span class=\"%1\" title=\"position %2, id %3\">%4<small>%5 A%6%7</small></span>\n")
      .arg(cls)
      .arg(t)
      .arg(b.inputIds.at(r, t))
      .arg(text.toHtmlEscaped())
      .arg(labelText)
      .arg(att)
      .arg(pos ? QStringLiteral(" p%1").arg(b.positionIds.at(r, t)) : QString());
}

// The token strip: one chip per position, runs of kFoldPadRun or more alike pads (same label, same
// attention bit, same id) folded into one "... N pads" chip.
QString stripSection(const Session& s) {
  const Batch& b = s.batch();
  const int r = s.batchRow();
  const std::vector<uint8_t> pads = paddingOfRow(b, r); // the one padding rule
  auto att = [&](int64_t t) { return b.attentionMask.sameShape(b.inputIds) ? b.attentionMask.at(r, t) : 1; };
  auto label = [&](int64_t t) { return b.labels.sameShape(b.inputIds) ? b.labels.at(r, t) : kIgnoreIndex; };
  auto alike = [&](int64_t a, int64_t c) {
    return pads[size_t(c)] && b.inputIds.at(r, c) == b.inputIds.at(r, a) && att(c) == att(a) &&
           gradedAt(b, r, c) == gradedAt(b, r, a) && (label(c) == kIgnoreIndex) == (label(a) == kIgnoreIndex);
  };
  QString h = QStringLiteral("<h2>Token strip</h2>\n<div class=\"strip\">\n");
  int64_t folded = 0;
  for (int64_t t = 0; t < b.length();) {
    int64_t e = t + 1;
    if (pads[size_t(t)])
      while (e < b.length() && alike(t, e)) ++e;
    const int64_t run = e - t >= kFoldPadRun ? e - t : 1;
    h += chip(s, t, run, pads[size_t(t)], gradedAt(b, r, t), att(t));
    folded += run > 1 ? run : 0;
    t += run;
  }
  h += QStringLiteral("</div>\n");
  if (folded > 0)
    h += QStringLiteral("<p>%1 pad positions are folded into runs (each chip names its positions).</p>\n").arg(folded);
  return h;
}

QString lossSection(const ReportLoss& loss) {
  const LossBreakdown& d = *loss.breakdown;
  QString h = QStringLiteral("<h2>Loss</h2>\n");
  h += loss.measured ? QStringLiteral("<p>Per-token losses measured by %1.</p>\n").arg(loss.source.toHtmlEscaped())
                     : QStringLiteral("<p class=\"note\"><b>Example values, not measured:</b> no model was loaded, so "
                                      "each graded position's loss is the loss view's example value (%1). The counts "
                                      "are this row's; the sums, shares and means follow from the example "
                                      "values.</p>\n")
                           .arg(loss.source.toHtmlEscaped());
  h += QStringLiteral("<table><tr><th>role</th><th>graded</th><th>loss sum%1</th><th>share of the loss%1</th><th>share "
                      "of the %2 graded positions</th></tr>\n")
           .arg(loss.measured ? QString() : QStringLiteral(" (example)"))
           .arg(d.total());
  for (int role = 0; role < kRoleCount; ++role) {
    const double lossShare = d.lossShare(role), tokenShare = d.tokenShare(role);
    h += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>\n")
             .arg(QLatin1String(positionRoleName(PositionRole(role))))
             .arg(d.graded[role])
             .arg(d.sum[role], 0, 'f', 3)
             .arg(std::isnan(lossShare) ? QStringLiteral("-")
                                        : QString::number(100 * lossShare, 'f', 1) + QStringLiteral(" %"))
             .arg(std::isnan(tokenShare) ? QStringLiteral("-")
                                         : QString::number(100 * tokenShare, 'f', 1) + QStringLiteral(" %"));
  }
  h += QStringLiteral("</table>\n<p>%1mean as given: %2; pads not graded: %3; replies only: %4. The gradient's share "
                      "is measured by the engine with a model, never the token share.</p>\n")
           .arg(loss.measured ? QString() : QStringLiteral("Example "))
           .arg(d.asGiven(), 0, 'f', 3)
           .arg(d.padsNotGraded(), 0, 'f', 3)
           .arg(d.repliesOnly(), 0, 'f', 3);
  return h;
}

QString lintSection(const LintReport& lint) {
  QString h =
      QStringLiteral("<h2>Lint findings</h2>\n<p>%1 errors, %2 warnings, %3 infos.</p>\n<table><tr><th>severity"
                     "</th><th>scope</th><th>rule</th><th>line</th><th>row</th><th>position</th><th>message</th>"
                     "</tr>\n")
          .arg(lint.summary.errors)
          .arg(lint.summary.warnings)
          .arg(lint.summary.infos);
  for (const Finding& f : lint.findings)
    h += QStringLiteral("<tr><td class=\"%1\">%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td><td>%6</td>"
                        "<td>%7</td></tr>\n")
             .arg(QString::fromLatin1(severityName(f.severity)), QString::fromLatin1(scopeName(f.scope)),
                  QString::fromStdString(f.rule).toHtmlEscaped(), f.line ? QString::number(*f.line) : QString(),
                  f.row ? QString::number(*f.row) : QString(), f.position ? QString::number(*f.position) : QString(),
                  QString::fromStdString(f.message).toHtmlEscaped());
  return h + QStringLiteral("</table>\n");
}

} // namespace

QString htmlReport(const Session& s, const LintReport* lint, const ReportLoss& loss, const QImage& grid) {
  QString h = QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>maskscope "
                             "report</title>\n<style>\n") +
              styleSheet() + QStringLiteral("</style></head><body>\n");
  h += QStringLiteral("<h1>maskscope report</h1>\n<p>Input: <code>%1</code> &middot; tokenizer <code>%2</code> "
                      "&middot; collator <code>%3</code> &middot; row %4</p>\n")
           .arg(s.datasetSpec().toHtmlEscaped(), s.tokenizerSpec().toHtmlEscaped(), s.collatorSpec().toHtmlEscaped())
           .arg(s.selectedRow());
  h += QStringLiteral("<p>Legend: thick solid border = graded (the label reaches the loss: kept, at position 1 or "
                      "later), dashed = -100, hatched = padding, A0 = not attended; &hellip; N pads = a run of N alike "
                      "pads in one chip.</p>\n");
  if (s.hasBatch()) h += stripSection(s);
  if (!grid.isNull()) {
    QByteArray png;
    QBuffer buf(&png);
    buf.open(QIODevice::WriteOnly);
    grid.save(&buf, "PNG");
    h += QStringLiteral("<h2>Attention grid</h2>\n<img alt=\"attention grid\" style=\"max-width:100%\" "
                        "src=\"data:image/png;base64,%1\">\n")
             .arg(QString::fromLatin1(png.toBase64()));
  }
  if (loss.breakdown) h += lossSection(loss);
  if (lint) h += lintSection(*lint);
  h += QStringLiteral(
      "<p><small>Generated by maskscope. It reads your files and never edits them.</small></p>\n</body></html>\n");
  return h;
}

} // namespace maskscope
