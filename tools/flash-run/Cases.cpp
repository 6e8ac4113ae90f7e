//===- Cases.cpp - flash-run's --shapes and --capture, both modes --------===//
//
// Parses --shapes, the --capture rules (and draws their tensors) and the
// numbers and lists in flash-run's options; see Cases.h.
//
//===----------------------------------------------------------------------===//

#include "Cases.h"

#include <algorithm>
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

std::string flash::run::parseCaptureRule(const std::string &text,
                                         CaptureRule &rule) {
  rule = CaptureRule();
  rule.text = text;
  auto bad = [&](const std::string &why) {
    return "bad --capture rule '" + text + "': " + why +
           " (expected KIND[:ARGS]@DIMS, KIND uniform:LO,HI, randint:LO,HI, "
           "docs:N or const:X, DIMS e.g. BxSq)";
  };
  size_t at = text.find('@');
  std::string spec = text.substr(0, at);
  std::string dims = at == std::string::npos ? "" : text.substr(at + 1);
  if (dims.empty())
    return bad("no @DIMS");
  size_t colon = spec.find(':');
  std::string kind = spec.substr(0, colon);
  std::string args = colon == std::string::npos ? "" : spec.substr(colon + 1);
  std::vector<std::string> values;
  if (!args.empty())
    values = split(args, ',');
  size_t want;
  if (kind == "uniform")
    rule.kind = CaptureRule::Uniform, want = 2;
  else if (kind == "randint")
    rule.kind = CaptureRule::RandInt, want = 2;
  else if (kind == "docs")
    rule.kind = CaptureRule::Docs, want = 1;
  else if (kind == "const")
    rule.kind = CaptureRule::Const, want = 1;
  else
    return bad("unknown kind '" + kind + "'");
  if (values.size() != want)
    return bad(std::to_string(want) + " argument(s) needed");
  double *out[] = {&rule.a, &rule.b};
  for (size_t n = 0; n < values.size(); ++n)
    if (!parseDouble(trim(values[n]), *out[n]))
      return bad("'" + values[n] + "' is not a number");
  if ((rule.kind == CaptureRule::Uniform ||
       rule.kind == CaptureRule::RandInt) &&
      !(rule.a <= rule.b))
    return bad("LO must be <= HI");
  if (rule.kind == CaptureRule::Docs && !(rule.a >= 1 && rule.a < 1e9))
    return bad("docs needs N >= 1");
  for (const std::string &d : split(dims, 'x')) {
    int64_t n;
    bool named = d == "B" || d == "Hq" || d == "Hkv" || d == "Sq" || d == "Sk";
    if (!named && (!parseInt(d, n) || n < 1 || n > (int64_t(1) << 40)))
      return bad("dim '" + d + "' is not B, Hq, Hkv, Sq, Sk or a size >= 1");
    rule.dims.push_back(d);
  }
  return "";
}

std::string flash::run::checkCaptureRule(const CaptureRule &rule, size_t n,
                                         bool isFloat, int64_t rank,
                                         const std::string &type) {
  bool intRule =
      rule.kind == CaptureRule::RandInt || rule.kind == CaptureRule::Docs;
  if ((isFloat && intRule) || (!isFloat && rule.kind == CaptureRule::Uniform))
    return "--capture rule '" + rule.text + "' does not fit capture #" +
           std::to_string(n) + " (" + type +
           "): uniform is for f32, randint and docs for i32";
  if (int64_t(rule.dims.size()) != rank)
    return "--capture rule '" + rule.text + "' gives " +
           std::to_string(rule.dims.size()) + " dim(s) for capture #" +
           std::to_string(n) + " of rank " + std::to_string(rank);
  return "";
}

std::vector<int64_t> flash::run::captureRuleSizes(const CaptureRule &rule,
                                                  const Case &c) {
  std::vector<int64_t> sizes;
  for (const std::string &d : rule.dims)
    sizes.push_back(d == "B"     ? c.b
                    : d == "Hq"  ? c.hq
                    : d == "Hkv" ? c.hkv
                    : d == "Sq"  ? c.sq
                    : d == "Sk"  ? c.sk
                                 : std::stoll(d));
  return sizes;
}

/// Contiguous strides of `sizes`.
static std::vector<int64_t> contiguous(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (int64_t d = int64_t(sizes.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * sizes[d + 1];
  return strides;
}

std::optional<double> HostCapture::at(const int64_t *idx, size_t rank) const {
  if (rank != sizes.size())
    return std::nullopt;
  int64_t flat = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (idx[d] < 0 || idx[d] >= sizes[d])
      return std::nullopt;
    flat += idx[d] * strides[d];
  }
  return isFloat() ? double(f[flat]) : double(i[flat]);
}

HostCapture flash::run::drawCapture(const CaptureRule &rule, bool isFloat,
                                    const std::vector<int64_t> &sizes,
                                    std::mt19937 &rng) {
  HostCapture buf;
  buf.sizes = sizes;
  buf.strides = contiguous(sizes);
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  // Never empty, so that data() is a valid pointer even for a 0-size dim.
  if (isFloat) {
    buf.f.assign(std::max<int64_t>(n, 1), float(rule.a));
    std::uniform_real_distribution<float> dist(rule.a, rule.b);
    if (rule.kind == CaptureRule::Uniform)
      for (float &x : buf.f)
        x = dist(rng);
    return buf;
  }
  buf.i.assign(std::max<int64_t>(n, 1), int32_t(rule.a));
  if (rule.kind == CaptureRule::RandInt || rule.kind == CaptureRule::Docs) {
    std::uniform_int_distribution<int32_t> dist(
        rule.kind == CaptureRule::Docs ? 0 : int32_t(rule.a),
        rule.kind == CaptureRule::Docs ? int32_t(rule.a) - 1 : int32_t(rule.b));
    for (int32_t &x : buf.i)
      x = dist(rng);
  }
  // Documents are contiguous runs along the last dim.
  int64_t last = sizes.empty() ? 1 : sizes.back();
  if (rule.kind == CaptureRule::Docs && last > 0)
    for (int64_t r = 0; r + last <= n; r += last)
      std::sort(buf.i.begin() + r, buf.i.begin() + r + last);
  return buf;
}

HostCapture flash::run::drawSlopes(unsigned rank, const Case &c,
                                   std::mt19937 &rng) {
  HostCapture buf;
  buf.sizes = rank == 2 ? std::vector<int64_t>{c.b, c.hq}
                        : std::vector<int64_t>{c.hq};
  std::uniform_real_distribution<float> dist(1.0f / 256.0f, 0.25f);
  buf.f.resize(rank == 2 ? c.b * c.hq : c.hq);
  buf.strides = contiguous(buf.sizes);
  for (float &x : buf.f)
    x = dist(rng);
  return buf;
}
