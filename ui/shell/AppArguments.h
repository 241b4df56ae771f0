// The desktop app's command line: `maskscope [FILE...] [--tokenizer T] [--template T] [--collator C]
// [--var k=v]...`, the same pipeline options the CLI commands take, and what the app does with them.
// A framework config (.yml/.yaml, or a framework spec as --collator) goes through the window's File >
// Open framework config, as drag-and-drop does; every other file opens as the File menu opens it.
#pragma once
#include <QString>
#include <QStringList>
#include <map>
#include <string>

namespace maskscope {

class MainWindow;
class Session;

struct AppArguments {
  QStringList files;   // datasets, batch dumps, model folders (in order)
  QStringList configs; // framework configs named as files (.yml / .yaml)
  QString tokenizer, templateSpec, collator;
  std::map<std::string, std::string> vars;
  QString error; // the command line is unusable: why (the app does not open; exit status 2)
};

// The options the app takes, for messages and --help: "--tokenizer, --template, --collator, --var".
QString appOptionNames();

// Parses the arguments after the program name. Qt's own single-dash options (-platform X, -style X,
// ...) are left to QApplication; any other option is an error naming the ones the app takes.
AppArguments parseAppArguments(const QStringList& args);

// Before the window exists: the template variables, tokenizer and template, then the files (a batch
// dump named with --tokenizer is decoded with it). Returns the errors (each also reported by the
// session); nothing given is silently replaced.
QStringList openAppFiles(Session& session, const AppArguments& args);
// Once the window is up (after its remembered settings): --collator and the framework configs, through
// the window's File > Open framework config (a framework's batch size becomes the batch rows).
QStringList applyAppCollator(MainWindow& window, Session& session, const AppArguments& args);

} // namespace maskscope
