//===- Cases.cpp - flash-run's --shapes, for both modes -------------------===//
//
// Parses --shapes and the numbers and lists in flash-run's options; see
// Cases.h.
//
//===----------------------------------------------------------------------===//

#include "Cases.h"

#include <cerrno>
#include <cstdlib>

using namespace flash::run;

bool flash::run::parseInt(const std::string &text, int64_t &out) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || errno)
    return false;
  out = v;
  return true;
}

bool flash::run::parseDouble(const std::string &text, double &out) {
  if (text.empty())
    return false;
  char *end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return *end == '\0';
}

std::string flash::run::trim(const std::string &s) {
  size_t a = s.find_first_not_of(" \t\n"), b = s.find_last_not_of(" \t\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::vector<std::string> flash::run::split(const std::string &s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

std::string flash::run::parseShapes(const std::string &text,
                                    std::vector<Case> &cases) {
  for (const std::string &raw : split(text, ';')) {
    std::string item = trim(raw);
    if (item.empty())
      continue;
    std::vector<int64_t> v;
    for (const std::string &f : split(item, ',')) {
      int64_t x;
      if (!parseInt(trim(f), x) || x <= 0)
        return "bad --shapes entry '" + item +
               "': expected positive integers B,Hq,Hkv,Sq,Sk[,D[,Dv]]";
      v.push_back(x);
    }
    if (v.size() < 5 || v.size() > 7)
      return "bad --shapes entry '" + item +
             "': expected 5 to 7 fields B,Hq,Hkv,Sq,Sk[,D[,Dv]]";
    Case c{v[0], v[1], v[2], v[3], v[4]};
    if (v.size() > 5)
      c.d = v[5];
    if (v.size() > 6)
      c.dv = v[6];
    if (c.hq % c.hkv != 0)
      return "bad --shapes entry '" + item + "': Hq (" + std::to_string(c.hq) +
             ") is not a multiple of Hkv (" + std::to_string(c.hkv) + ")";
    cases.push_back(c);
  }
  if (cases.empty())
    return "--shapes lists no case";
  return "";
}
