// The app on a large dataset (issue 25 §3): generates a JSONL of the size asked for (or reads one),
// opens it as the app does (Session + MainWindow off screen) and reports open time, peak memory
// (VmHWM) and the browser's filter and search times, each against a plain sequential read of the
// same file measured in the same run. `--hold-all` instead reads every row into memory, as the app
// did before the offset index, to show what that costs. Run off screen; deletes what it generates:
//   QT_QPA_PLATFORM=offscreen ./bench_dataset_app MB [--keep PATH | --file PATH] [--hold-all]
#include "core/data/DatasetReader.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QListWidget>
#include <QSpinBox>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/statvfs.h>
#include <thread>

using namespace maskscope;

namespace {

long vmKb(const char* field) { // a line of /proc/self/status, in kB
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::strlen(field)));
  return -1;
}

// Rows of 2 to 6 messages, ~2 KB each like no_robots; every 1000th row holds the word "zephyrine",
// so a search for it matches 0.1% of the rows.
void generate(const std::string& path, int64_t bytes) {
  static const char* words[] = {"the",    "model", "learns",  "only",    "from",   "assistant",
                                "tokens", "while", "prompt",  "labels",  "are",    "masked",
                                "with",   "minus", "hundred", "padding", "packed", "rows"};
  std::ofstream out(path, std::ios::binary);
  std::string row;
  for (int64_t r = 0, written = 0; written < bytes; ++r) {
    row = "{\"messages\": [";
    const int messages = 2 + int(r % 5);
    for (int m = 0; m < messages; ++m) {
      row += m ? ", " : "";
      row += m % 2 == 0 ? "{\"role\": \"user\", \"content\": \"" : "{\"role\": \"assistant\", \"content\": \"";
      const int n = 300 / messages + int((r * 7 + m) % 40);
      for (int w = 0; w < n; ++w) {
        row += words[size_t((r * 31 + m * 7 + w * 13) % 18)];
        row += ' ';
      }
      if (r % 1000 == 0 && m == 1) row += "zephyrine ";
      row += std::to_string(r) + "\"}";
    }
    row += "]}\n";
    out << row;
    written += int64_t(row.size());
  }
}

double secondsSince(const QElapsedTimer& t) { return double(t.nsecsElapsed()) / 1e9; }

template <typename Done> double waitFor(Done done) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    std::this_thread::sleep_for(std::chrono::milliseconds(5)); // a benchmark, not a test: polls the worker
  }
  return secondsSince(t);
}

} // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  const QStringList args = app.arguments();
  if (args.size() < 2) {
    std::fprintf(stderr, "usage: bench_dataset_app MB [--file PATH] [--keep PATH] [--hold-all]\n");
    return 2;
  }
  const int64_t bytes = int64_t(args[1].toLongLong()) * 1000000;
  const int fileAt = int(args.indexOf(QStringLiteral("--file")));
  const int keepAt = int(args.indexOf(QStringLiteral("--keep")));
  std::string path = fileAt > 0   ? args.value(fileAt + 1).toStdString()
                     : keepAt > 0 ? args.value(keepAt + 1).toStdString()
                                  : (std::filesystem::temp_directory_path() / "maskscope_bench_app.jsonl").string();
  const bool generated = fileAt < 0;
  if (generated) {
    struct statvfs fs {};
    statvfs(std::filesystem::path(path).parent_path().c_str(), &fs);
    const double freeBytes = double(fs.f_bavail) * double(fs.f_frsize);
    if (freeBytes < 2.0 * double(bytes)) {
      std::fprintf(stderr, "bench_dataset_app: %.1f GB free, need twice the %.1f GB asked for\n", freeBytes / 1e9,
                   double(bytes) / 1e9);
      return 2;
    }
    QElapsedTimer g;
    g.start();
    generate(path, bytes);
    std::printf("generated %s: %.0f MB in %.1f s\n", path.c_str(), double(std::filesystem::file_size(path)) / 1e6,
                secondsSince(g));
  }
  const double size = double(std::filesystem::file_size(path));
  const long rssBase = vmKb("VmHWM:");
  // The reference: one sequential read of the file (1 MiB blocks), lines counted.
  QElapsedTimer t;
  t.start();
  long lines = 0;
  {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    std::vector<char> buf(size_t(1) << 20);
    for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), f)) > 0;)
      lines += long(std::count(buf.begin(), buf.begin() + long(n), '\n'));
    std::fclose(f);
  }
  const double readS = secondsSince(t);
  std::printf("file: %.0f MB, %ld lines; reference sequential read %.2f s (%.0f MB/s)\n", size / 1e6, lines, readS,
              size / 1e6 / readS);
  if (args.contains(QStringLiteral("--hold-all"))) { // what the app held before the offset index
    t.restart();
    const std::vector<Conversation> rows = readDataset(path);
    std::printf("hold-all: readDataset %zu rows in %.1f s (%.1fx the read); peak RSS %.0f MB (%.2fx the file)\n",
                rows.size(), secondsSince(t), secondsSince(t) / readS, double(vmKb("VmHWM:")) / 1024,
                double(vmKb("VmHWM:")) * 1024 / size);
    // The browser's former list: one QListWidget item per row, its title made up front.
    t.restart();
    QListWidget list;
    list.setUniformItemSizes(true);
    for (size_t r = 0; r < rows.size(); ++r) {
      const auto& m = rows[r].messages;
      QString first = m.empty() ? QString() : QString::fromStdString(m.front().content).simplified().left(57);
      auto* item = new QListWidgetItem(
          QStringLiteral("line %1 \u00b7 %2  (%3 msgs)").arg(r + 1).arg(first).arg(m.size()), &list);
      item->setData(Qt::UserRole, int(r));
    }
    list.show();
    QCoreApplication::processEvents();
    std::printf("hold-all: a QListWidget of every row's title in %.1f s; peak RSS %.0f MB (%.2fx the file)\n",
                secondsSince(t), double(vmKb("VmHWM:")) / 1024, double(vmKb("VmHWM:")) * 1024 / size);
  } else {
    Session session;
    t.restart();
    if (!session.openDataset(QString::fromStdString(path))) return 1;
    const double openS = secondsSince(t);
    MainWindow window(&session);
    window.show();
    QCoreApplication::processEvents();
    const double shownS = secondsSince(t);
    std::printf("open: %d rows indexed in %.1f s (%.1fx the read), window shown at %.1f s; RSS now %.0f MB, "
                "peak %.0f MB (start-up %.0f MB)\n",
                session.rowCount(), openS, openS / readS, shownS, double(vmKb("VmRSS:")) / 1024,
                double(vmKb("VmHWM:")) / 1024, double(rssBase) / 1024);
    t.restart();
    window.minMessagesBox()->setValue(5);
    const double filterS = secondsSince(t);
    std::printf("filter msgs >= 5: %d rows in %.3f s (%.3fx the read)\n", window.visibleRowCount(), filterS,
                filterS / readS);
    window.minMessagesBox()->setValue(0);
    window.searchBox()->setText(QStringLiteral("zephyrine"));
    const double searchS = waitFor([&] { return !window.searchPending(); });
    std::printf("search \"zephyrine\": %d rows in %.1f s (%.1fx the read)\n", window.visibleRowCount(), searchS,
                searchS / readS);
    std::printf("peak RSS %.0f MB (%.3fx the file; target < 250 MB)\n", double(vmKb("VmHWM:")) / 1024,
                double(vmKb("VmHWM:")) * 1024 / size);
  }
  if (generated && keepAt < 0) std::filesystem::remove(path);
  return 0;
}
