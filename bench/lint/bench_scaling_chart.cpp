// Draws bench/lint/scaling.sh's results as a PNG with Qt Charts: CPU seconds against size on log-log
// axes, one line per command, the row-length series on the left and the row-count series on the
// right, each line named with its fitted slope (1 = linear, 2 = quadratic).
//   bench_scaling_chart RESULTS.tsv OUT.png
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QFile>
#include <QHBoxLayout>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPixmap>
#include <QScatterSeries>
#include <QTextStream>
#include <QWidget>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

namespace {

struct Point {
  double size, cpu;
};

double slopeOf(const std::vector<Point>& pts) {
  if (pts.size() < 2) return 0;
  double mx = 0, my = 0;
  for (const Point& p : pts) {
    mx += std::log(p.size);
    my += std::log(std::max(p.cpu, 0.01));
  }
  mx /= double(pts.size());
  my /= double(pts.size());
  double num = 0, den = 0;
  for (const Point& p : pts) {
    num += (std::log(p.size) - mx) * (std::log(std::max(p.cpu, 0.01)) - my);
    den += (std::log(p.size) - mx) * (std::log(p.size) - mx);
  }
  return den > 0 ? num / den : 0;
}

// One chart: the series' commands as lines with markers, on log-log axes.
QChartView* chartOf(const std::map<QString, std::vector<Point>>& byCommand, const QString& title, const QString& unit) {
  auto* chart = new QChart;
  chart->setTitle(title);
  auto* x = new QLogValueAxis;
  x->setBase(10);
  x->setLabelFormat(QStringLiteral("%g"));
  x->setTitleText(unit);
  auto* y = new QLogValueAxis;
  y->setBase(10);
  y->setLabelFormat(QStringLiteral("%g"));
  y->setTitleText(QStringLiteral("CPU seconds"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  // Every series' points inside the axes (Qt Charts fits a log axis to the first series only).
  double x0 = 1e300, x1 = 0, y0 = 1e300, y1 = 0;
  for (const auto& [command, pts] : byCommand)
    for (const Point& p : pts) {
      x0 = std::min(x0, p.size);
      x1 = std::max(x1, p.size);
      y0 = std::min(y0, std::max(p.cpu, 0.01));
      y1 = std::max(y1, std::max(p.cpu, 0.01));
    }
  if (x1 > 0) {
    x->setRange(x0 / 1.3, x1 * 1.3);
    y->setRange(std::pow(10.0, std::floor(std::log10(y0))), std::pow(10.0, std::ceil(std::log10(y1))));
  }
  for (const auto& [command, pts] : byCommand) {
    auto* line = new QLineSeries;
    line->setName(QStringLiteral("%1 (slope %2)").arg(command).arg(slopeOf(pts), 0, 'f', 2));
    for (const Point& p : pts) line->append(p.size, std::max(p.cpu, 0.01));
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    line->setPointsVisible(true);
  }
  chart->legend()->setAlignment(Qt::AlignBottom);
  auto* view = new QChartView(chart);
  view->setRenderHint(QPainter::Antialiasing);
  return view;
}

} // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: bench_scaling_chart RESULTS.tsv OUT.png\n");
    return 2;
  }
  QFile file(QString::fromLocal8Bit(argv[1]));
  if (!file.open(QIODevice::ReadOnly)) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  std::map<QString, std::map<QString, std::vector<Point>>> bySeries; // series -> command -> points
  QTextStream in(&file);
  in.readLine(); // the header: command series size wall_s cpu_s peak_mb
  while (!in.atEnd()) {
    const QStringList f = in.readLine().split(QLatin1Char('\t'));
    if (f.size() < 6) continue;
    bySeries[f[1]][f[0]].push_back({f[2].toDouble(), f[4].toDouble()});
  }
  QWidget window;
  auto* layout = new QHBoxLayout(&window);
  layout->addWidget(chartOf(bySeries[QStringLiteral("length")], QStringLiteral("one row of N tokens"),
                            QStringLiteral("tokens in the row")));
  layout->addWidget(
      chartOf(bySeries[QStringLiteral("rows")], QStringLiteral("N rows (TRL padding_free)"), QStringLiteral("rows")));
  window.resize(1100, 460);
  window.show();
  QApplication::processEvents();
  if (!window.grab().save(QString::fromLocal8Bit(argv[2]), "PNG")) {
    std::fprintf(stderr, "cannot write %s\n", argv[2]);
    return 2;
  }
  return 0;
}
