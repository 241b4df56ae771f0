// Runs the built maskscope binary (MASKSCOPE_BINARY) as a script would, for the tests that check the
// command line end to end: exit status (-2 for a crash, -1 for a time-out), stdout and stderr.
#pragma once
#include <QProcess>
#include <QStringList>

struct Run {
  int status = -1;
  QByteArray out, err;
};

inline Run runMaskscope(const QStringList& args, const QString& workDir = {}, int timeoutMs = 300000) {
  QProcess p;
  if (!workDir.isEmpty()) p.setWorkingDirectory(workDir);
  p.start(QStringLiteral(MASKSCOPE_BINARY), args);
  Run r;
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    return r;
  }
  r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
  r.out = p.readAllStandardOutput();
  r.err = p.readAllStandardError();
  return r;
}
