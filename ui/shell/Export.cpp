// PNG/SVG export and text files (the HTML report: HtmlReport.cpp).
#include "ui/shell/Export.h"

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

} // namespace maskscope
