// The app's command line: parsed before QApplication exists (a bad one exits 2 with the reason), and
// applied in two steps around the window's construction (its remembered collator comes in between,
// so what the command line names wins).
#include "ui/shell/AppArguments.h"
#include "core/frameworks/FrameworkSpec.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"

#include <QFileInfo>
#include <QObject>

namespace maskscope {

namespace {

// QApplication's own options (qguiapplication.cpp, qapplication.cpp): those taking a value, and flags.
const QStringList& qtOptionsWithValue() {
  static const QStringList names{QStringLiteral("-platform"),        QStringLiteral("-platformpluginpath"),
                                 QStringLiteral("-platformtheme"),   QStringLiteral("-plugin"),
                                 QStringLiteral("-qwindowgeometry"), QStringLiteral("-geometry"),
                                 QStringLiteral("-qwindowicon"),     QStringLiteral("-qwindowtitle"),
                                 QStringLiteral("-title"),           QStringLiteral("-style"),
                                 QStringLiteral("-stylesheet"),      QStringLiteral("-session"),
                                 QStringLiteral("-display"),         QStringLiteral("-name")};
  return names;
}

const QStringList& qtFlags() {
  static const QStringList names{QStringLiteral("-reverse"), QStringLiteral("-widgetcount"), QStringLiteral("-nograb"),
                                 QStringLiteral("-dograb"), QStringLiteral("-sync")};
  return names;
}

bool isConfigFile(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  return suffix == QLatin1String("yml") || suffix == QLatin1String("yaml");
}

// Collects the session's errors while alive (the window is not up yet, or the caller reports them).
struct ErrorCollector {
  QStringList& errors;
  QMetaObject::Connection connection;
  ErrorCollector(Session& s, QStringList& out) : errors(out) {
    connection = QObject::connect(&s, &Session::errorOccurred, [this](const QString& m) { errors << m; });
  }
  ~ErrorCollector() { QObject::disconnect(connection); }
  ErrorCollector(const ErrorCollector&) = delete;
  ErrorCollector& operator=(const ErrorCollector&) = delete;
};

} // namespace

QString appOptionNames() {
  return QStringLiteral("--tokenizer T, --template T, --collator C, --var k=v (repeatable) and --data FILE");
}

AppArguments parseAppArguments(const QStringList& args) {
  AppArguments out;
  auto fail = [&out](const QString& why) {
    out.error = why;
    return out;
  };
  for (qsizetype i = 0; i < args.size(); ++i) {
    const QString& a = args[i];
    if (qtOptionsWithValue().contains(a)) {
      ++i; // QApplication reads it and its value
      continue;
    }
    if (qtFlags().contains(a) || a.startsWith(QLatin1String("-qmljsdebugger="))) continue;
    if (!a.startsWith(QLatin1Char('-')) || a == QLatin1String("-")) {
      (isConfigFile(a) ? out.configs : out.files) << a;
      continue;
    }
    // --name VALUE or --name=VALUE
    QString name = a, value;
    bool inlineValue = false;
    if (const qsizetype eq = a.indexOf(QLatin1Char('=')); a.startsWith(QLatin1String("--")) && eq > 2) {
      name = a.left(eq);
      value = a.mid(eq + 1);
      inlineValue = true;
    }
    static const QStringList known{QStringLiteral("--tokenizer"), QStringLiteral("--template"),
                                   QStringLiteral("--collator"), QStringLiteral("--var"), QStringLiteral("--data")};
    if (!known.contains(name))
      return fail(QStringLiteral("unknown option %1: the app takes %2, as the commands do (see maskscope --help)")
                      .arg(name, appOptionNames()));
    if (!inlineValue) {
      if (i + 1 >= args.size()) return fail(QStringLiteral("%1 needs a value").arg(name));
      value = args[++i];
    }
    if (value.isEmpty()) return fail(QStringLiteral("%1 needs a value").arg(name));
    if (name == QLatin1String("--tokenizer"))
      out.tokenizer = value;
    else if (name == QLatin1String("--template"))
      out.templateSpec = value;
    else if (name == QLatin1String("--data"))
      (isConfigFile(value) ? out.configs : out.files) << value;
    else if (name == QLatin1String("--collator")) {
      if (!out.collator.isEmpty()) return fail(QStringLiteral("--collator is given twice"));
      out.collator = value;
    } else {
      const qsizetype eq = value.indexOf(QLatin1Char('='));
      if (eq <= 0) return fail(QStringLiteral("--var: expected k=v, got \"%1\"").arg(value));
      out.vars[value.left(eq).toStdString()] = value.mid(eq + 1).toStdString();
    }
  }
  // One collator builds the batch: two would leave one silently unused.
  QStringList collators = out.configs;
  if (!out.collator.isEmpty()) collators.prepend(out.collator);
  if (collators.size() > 1)
    return fail(QStringLiteral("one collator builds the batch, but %1 are named (%2): name one")
                    .arg(collators.size())
                    .arg(collators.join(QStringLiteral(", "))));
  return out;
}

QStringList openAppFiles(Session& session, const AppArguments& args) {
  QStringList errors;
  ErrorCollector collect(session, errors);
  if (!args.vars.empty()) session.setTemplateVariables(args.vars);
  if (!args.tokenizer.isEmpty() || !args.templateSpec.isEmpty())
    session.setPipeline(args.tokenizer, args.templateSpec, session.collatorSpec());
  for (const QString& f : args.files) {
    // A dump named with --tokenizer is decoded with it, fitting or not: the user named it for the file.
    if (session.openPath(f) && !args.tokenizer.isEmpty() && session.isBatchDump() && session.datasetSpec() == f &&
        !session.decodesDump())
      session.chooseDumpTokenizer(session.tokenizerSpec());
  }
  if (session.source() == Session::Source::None) session.openDataset(QStringLiteral("builtin:demo"));
  return errors;
}

QStringList applyAppCollator(MainWindow& window, Session& session, const AppArguments& args) {
  QStringList errors;
  const QString spec = !args.collator.isEmpty() ? args.collator : args.configs.value(0);
  if (spec.isEmpty()) return errors;
  bool framework = false;
  try {
    framework = isFrameworkSpec(spec.toStdString());
  } catch (const std::exception& e) {
    return {QString::fromUtf8(e.what())};
  }
  // A config file named as a file (or a framework spec as --collator) opens as File > Open framework
  // config opens it; a .yml that is no framework's config is refused there with the reason.
  if (framework || isConfigFile(spec)) {
    QString error;
    if (!window.openFrameworkConfig(spec, &error)) errors << error;
    return errors;
  }
  ErrorCollector collect(session, errors);
  session.setCollator(spec);
  return errors;
}

} // namespace maskscope
