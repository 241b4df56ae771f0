// strftime_now (Strftime.h): the directives chat templates use, in the C locale, computed here so the
// output does not depend on the machine's locale.
#include "core/template/jinja/Strftime.h"
#include "core/template/jinja/Interpreter.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace maskscope::jinja {

namespace {

const char* const kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                               "July",    "August",   "September", "October", "November", "December"};
const char* const kDays[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};

int dayOfWeek(int y, int m, int d) { // 0 = Sunday (Sakamoto)
  static const int t[] = {0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4};
  if (m < 3) y -= 1;
  return (y + y / 4 - y / 100 + y / 400 + t[m - 1] + d) % 7;
}

int dayOfYear(int y, int m, int d) {
  static const int cum[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return cum[m - 1] + d + (leap && m > 2 ? 1 : 0);
}

} // namespace

std::string strftimeNow(const std::string& fmt, const std::optional<std::string>& now) {
  int Y, M, D, h = 0, mi = 0, s = 0;
  if (now) {
    if (std::sscanf(now->c_str(), "%d-%d-%d", &Y, &M, &D) != 3 || M < 1 || M > 12 || D < 1 || D > 31)
      throw JinjaError("ValueError", "--now must look like 2024-07-26, got '" + *now + "'");
    std::sscanf(now->c_str(), "%*d-%*d-%*d%*[T ]%d:%d:%d", &h, &mi, &s);
  } else {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    localtime_r(&t, &tm);
    Y = tm.tm_year + 1900, M = tm.tm_mon + 1, D = tm.tm_mday, h = tm.tm_hour, mi = tm.tm_min, s = tm.tm_sec;
  }
  std::string out;
  char b[32];
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%' || i + 1 >= fmt.size()) {
      out.push_back(fmt[i]);
      continue;
    }
    char c = fmt[++i];
    int w = dayOfWeek(Y, M, D);
    switch (c) {
    case 'd':
      std::snprintf(b, sizeof b, "%02d", D);
      out += b;
      break;
    case 'e':
      std::snprintf(b, sizeof b, "%2d", D);
      out += b;
      break;
    case 'm':
      std::snprintf(b, sizeof b, "%02d", M);
      out += b;
      break;
    case 'Y':
      out += std::to_string(Y);
      break;
    case 'y':
      std::snprintf(b, sizeof b, "%02d", Y % 100);
      out += b;
      break;
    case 'B':
      out += kMonths[M - 1];
      break;
    case 'b':
    case 'h':
      out += std::string(kMonths[M - 1]).substr(0, 3);
      break;
    case 'A':
      out += kDays[w];
      break;
    case 'a':
      out += std::string(kDays[w]).substr(0, 3);
      break;
    case 'w':
      out += std::to_string(w);
      break;
    case 'u':
      out += std::to_string(w == 0 ? 7 : w);
      break;
    case 'j':
      std::snprintf(b, sizeof b, "%03d", dayOfYear(Y, M, D));
      out += b;
      break;
    case 'H':
      std::snprintf(b, sizeof b, "%02d", h);
      out += b;
      break;
    case 'I':
      std::snprintf(b, sizeof b, "%02d", h % 12 == 0 ? 12 : h % 12);
      out += b;
      break;
    case 'M':
      std::snprintf(b, sizeof b, "%02d", mi);
      out += b;
      break;
    case 'S':
      std::snprintf(b, sizeof b, "%02d", s);
      out += b;
      break;
    case 'p':
      out += h < 12 ? "AM" : "PM";
      break;
    case 'F':
      std::snprintf(b, sizeof b, "%04d-%02d-%02d", Y, M, D);
      out += b;
      break;
    case '%':
      out.push_back('%');
      break;
    default:
      out.push_back('%');
      out.push_back(c);
    }
  }
  return out;
}

} // namespace maskscope::jinja
