// PNG/SVG/HTML export.
#include "ui/shell/Export.h"
#include "core/lint/LintReport.h"
#include "core/util/Utf8.h"
#include "ui/shell/Session.h"
#include "ui/views/loss/LossView.h"

#include <QBuffer>
#include <QFile>
#include <QFileInfo>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace maskscope {

QImage renderToImage(const RenderFunction& render, QSize size, qreal dpr) {
  QImage img(size * dpr, QImage::Format_ARGB32_Premultiplied);
  img.setDevicePixelRatio(dpr);
  img.fill(Qt::white);
  QPainter p(&img);
  p.setRenderHint(QPainter::Antialiasing, false);
  p.setRenderHint(QPainter::TextAntialiasing, true);
  render(p, QRect(QPoint(0, 0), size));
  p.end();
  return img;
}

bool exportPng(const RenderFunction& render, QSize size, const QString& path, QString* error) {
  const QImage img = renderToImage(render, size);
  if (!img.save(path, "PNG")) {
    if (error) *error = QObject::tr("could not write %1").arg(path);
    return false;
  }
  return true;
}

bool exportSvg(const RenderFunction& render, QSize size, const QString& path, const QString& title, QString* error) {
  QSvgGenerator gen;
  gen.setFileName(path);
  gen.setSize(size);
  gen.setViewBox(QRect(QPoint(0, 0), size));
  gen.setTitle(title);
  gen.setDescription(QObject::tr("exported by maskscope"));
  QPainter p;
  if (!p.begin(&gen)) {
    if (error) *error = QObject::tr("could not write %1").arg(path);
    return false;
  }
  render(p, QRect(QPoint(0, 0), size));
  p.end();
  if (!QFileInfo(path).exists() || QFileInfo(path).size() == 0) {
    if (error) *error = QObject::tr("could not write %1").arg(path);
    return false;
  }
  return true;
}

bool exportWidget(QWidget* w, const QString& path, QString* error) {
  if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
    return exportSvg([w](QPainter& p, QRect) { w->render(&p); }, w->size(), path, w->windowTitle(), error);
  if (!w->grab().save(path, "PNG")) {
    if (error) *error = QObject::tr("could not write %1").arg(path);
    return false;
  }
  return true;
}

bool writeTextFile(const QString& path, const QString& text, QString* error) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(text.toUtf8()) < 0 || !f.commit()) {
    if (error) *error = QObject::tr("could not write %1").arg(path);
    return false;
  }
  return true;
}

QString htmlReport(const Session& s, const LintReport* lint, const LossBreakdown* loss, const QImage& grid) {
  QString h;
  h += QStringLiteral(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>maskscope report</title>\n<style>\n"
      "body{font-family:system-ui,'Noto Sans',sans-serif;margin:2em;color:#1a1a1a;background:#fff}\n"
      ".strip{display:flex;flex-wrap:wrap;gap:4px}\n"
      ".chip{border:1px dashed #9a9a9a;padding:3px 5px;font-family:monospace;min-width:2em}\n"
      ".chip small{display:block;color:#555}\n"
      ".graded{border:3px solid #1f5fa0}\n.pad{background:repeating-linear-gradient(45deg,#ffe0c0,#ffe0c0 4px,#fff "
      "4px,#fff 8px)}\n"
      ".pad.graded{border-color:#c01f20}\n.system{background:#eceaf6}.user{background:#e3eff8}.assistant{background:#"
      "e0f2e6}.template{background:#eee}\n"
      "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}\n"
      ".error{color:#c01f20;font-weight:bold}\n</style></head><body>\n");
  h += QStringLiteral("<h1>maskscope report</h1>\n<p>Input: <code>%1</code> &middot; tokenizer <code>%2</code> "
                      "&middot; collator <code>%3</code> &middot; row %4</p>\n")
           .arg(s.datasetSpec().toHtmlEscaped(), s.tokenizerSpec().toHtmlEscaped(), s.collatorSpec().toHtmlEscaped())
           .arg(s.selectedRow());
  h += QStringLiteral("<p>Legend: thick solid border = graded (label kept), dashed = -100, hatched = padding, A0 = not "
                      "attended.</p>\n");
  if (s.hasBatch()) {
    const Batch& b = s.batch();
    const int r = s.batchRow();
    const bool haveMeta = size_t(r) < b.meta.size() && int64_t(b.meta[size_t(r)].size()) == b.length();
    h += QStringLiteral("<h2>Token strip</h2>\n<div class=\"strip\">\n");
    for (int64_t t = 0; t < b.length(); ++t) {
      const bool graded = b.labels.sameShape(b.inputIds) && b.labels.at(r, t) != kIgnoreIndex;
      const int64_t att = b.attentionMask.sameShape(b.inputIds) ? b.attentionMask.at(r, t) : 1;
      const PositionMeta m = haveMeta ? b.meta[size_t(r)][size_t(t)] : PositionMeta{};
      const bool pad = haveMeta ? m.kind == PositionKind::Padding : att == 0;
      QString cls = QStringLiteral("chip");
      if (graded) cls += QStringLiteral(" graded");
      if (pad) cls += QStringLiteral(" pad");
      if (haveMeta && !pad) cls += QLatin1Char(' ') + QString::fromLatin1(positionKindName(m.kind)).toLower();
      const QString text =
          QString::fromStdString(utf8::visibleWhitespace(s.tokenText(b.inputIds.at(r, t)).toStdString()));
      h += QStringLiteral("<span class=\"%1\" title=\"position %2, id %3\">%4<small>%5 A%6%7</small></span>\n")
               .arg(cls)
               .arg(t)
               .arg(b.inputIds.at(r, t))
               .arg(text.toHtmlEscaped())
               .arg(graded ? QStringLiteral("&#10003;L") : QStringLiteral("-100"))
               .arg(att)
               .arg(b.positionIds.sameShape(b.inputIds) ? QStringLiteral(" p%1").arg(b.positionIds.at(r, t))
                                                        : QString());
    }
    h += QStringLiteral("</div>\n");
  }
  if (!grid.isNull()) {
    QByteArray png;
    QBuffer buf(&png);
    buf.open(QIODevice::WriteOnly);
    grid.save(&buf, "PNG");
    h += QStringLiteral("<h2>Attention grid</h2>\n<img alt=\"attention grid\" style=\"max-width:100%\" "
                        "src=\"data:image/png;base64,%1\">\n")
             .arg(QString::fromLatin1(png.toBase64()));
  }
  if (loss) {
    h += QStringLiteral("<h2>Loss</h2>\n<table><tr><th>role</th><th>graded</th><th>loss sum</th><th>share of "
                        "loss</th><th>share of gradient</th></tr>\n");
    const char* names[] = {"prompt", "reply", "pad", "unknown"};
    for (int role = 0; role < 4; ++role)
      h += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4 %</td><td>%5 %</td></tr>\n")
               .arg(QLatin1String(names[role]))
               .arg(loss->graded[role])
               .arg(loss->sum[role], 0, 'f', 3)
               .arg(100 * (loss->totalSum() ? loss->sum[role] / loss->totalSum() : 0), 0, 'f', 1)
               .arg(100 * (loss->total() ? double(loss->graded[role]) / double(loss->total()) : 0), 0, 'f', 1);
    h += QStringLiteral("</table>\n<p>Mean as given: %1; pads not graded: %2; replies only: %3.</p>\n")
             .arg(loss->asGiven(), 0, 'f', 3)
             .arg(loss->padsNotGraded(), 0, 'f', 3)
             .arg(loss->repliesOnly(), 0, 'f', 3);
  }
  if (lint) {
    h +=
        QStringLiteral(
            "<h2>Lint findings</h2>\n<p>%1 errors, %2 warnings, %3 "
            "infos.</p>\n<table><tr><th>severity</th><th>rule</th><th>row</th><th>position</th><th>message</th></tr>\n")
            .arg(lint->summary.errors)
            .arg(lint->summary.warnings)
            .arg(lint->summary.infos);
    for (const Finding& f : lint->findings)
      h += QStringLiteral("<tr><td class=\"%1\">%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>\n")
               .arg(QString::fromLatin1(severityName(f.severity)), QString::fromStdString(f.rule).toHtmlEscaped(),
                    f.row ? QString::number(*f.row) : QString(), f.position ? QString::number(*f.position) : QString(),
                    QString::fromStdString(f.message).toHtmlEscaped());
    h += QStringLiteral("</table>\n");
  }
  h += QStringLiteral(
      "<p><small>Generated by maskscope. It reads your files and never edits them.</small></p>\n</body></html>\n");
  return h;
}

} // namespace maskscope
