//===- Abi.cpp - The artifact's ABI record --------------------------------===//
//
// The tolerant reader of `<func>_flash_abi` (see Abi.h). It skips strings,
// arrays and nested objects while looking for a key, so a key name inside a
// string value or a nested object is never mistaken for a top-level one.
// A backward record's "args" is checked whole (every gradient role once,
// the captures where their records put them), so that a record the runtime
// misreads fails flashrt_open rather than a call with swapped operands.
//
//===----------------------------------------------------------------------===//

#include "flashrt/Abi.h"
#include "flashrt.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>

using namespace flashrt;

namespace {

struct Reader {
  const std::string &s;
  size_t i = 0;

  void skipSpace() {
    while (i < s.size() && std::isspace((unsigned char)s[i]))
      ++i;
  }
  bool consume(char c) {
    skipSpace();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  /// Parses a string at i (after the opening quote is seen); handles the
  /// simple escapes, keeps others verbatim.
  bool string(std::string &out) {
    if (!consume('"'))
      return false;
    out.clear();
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\' && i + 1 < s.size()) {
        char e = s[++i];
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        out += s[i];
      }
      ++i;
    }
    return i++ < s.size();
  }
  /// Skips one value of any kind.
  bool skipValue() {
    skipSpace();
    if (i >= s.size())
      return false;
    if (s[i] == '"') {
      std::string ignored;
      return string(ignored);
    }
    if (s[i] == '{' || s[i] == '[') {
      int depth = 0;
      while (i < s.size()) {
        char c = s[i];
        if (c == '"') {
          std::string ignored;
          if (!string(ignored))
            return false;
          continue;
        }
        ++i;
        if (c == '{' || c == '[')
          ++depth;
        else if ((c == '}' || c == ']') && --depth == 0)
          return true;
      }
      return false;
    }
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']')
      ++i;
    return true;
  }
  /// Positions i at the value of top-level `key`.
  bool findKey(const std::string &key) {
    i = 0;
    if (!consume('{'))
      return false;
    std::string name;
    while (string(name)) {
      if (!consume(':'))
        return false;
      skipSpace();
      if (name == key)
        return true;
      if (!skipValue() || !consume(','))
        return false;
    }
    return false;
  }
  /// A scalar token (number, true, false, null) at i.
  std::string token() {
    skipSpace();
    size_t start = i;
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' &&
           !std::isspace((unsigned char)s[i]))
      ++i;
    return s.substr(start, i - start);
  }
};

/// Whether the object `json` has top-level `key`, whatever its value.
bool hasKey(const std::string &json, const std::string &key) {
  Reader r{json};
  return r.findKey(key);
}

/// The string a JSON text holds ("\"q\"" gives q), nullopt if it is not
/// one string.
std::optional<std::string> jsonString(const std::string &text) {
  Reader r{text};
  std::string out;
  if (!r.string(out))
    return std::nullopt;
  r.skipSpace();
  if (r.i != text.size())
    return std::nullopt;
  return out;
}

std::optional<double> toNumber(const std::string &t) {
  if (t.empty())
    return std::nullopt;
  char *end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (*end != '\0')
    return std::nullopt;
  return v;
}

} // namespace

std::optional<std::string> flashrt::abiString(const std::string &json,
                                              const std::string &key) {
  Reader r{json};
  std::string out;
  if (!r.findKey(key) || !r.string(out))
    return std::nullopt;
  return out;
}

std::optional<double> flashrt::abiNumber(const std::string &json,
                                         const std::string &key) {
  Reader r{json};
  if (!r.findKey(key))
    return std::nullopt;
  return toNumber(r.token());
}

std::optional<bool> flashrt::abiBool(const std::string &json,
                                     const std::string &key) {
  Reader r{json};
  if (!r.findKey(key))
    return std::nullopt;
  std::string t = r.token();
  if (t == "true" || t == "1")
    return true;
  if (t == "false" || t == "0")
    return false;
  return std::nullopt;
}

std::optional<std::vector<double>> flashrt::abiNumbers(const std::string &json,
                                                       const std::string &key) {
  Reader r{json};
  if (!r.findKey(key) || !r.consume('['))
    return std::nullopt;
  std::vector<double> out;
  if (r.consume(']'))
    return out;
  do {
    std::optional<double> v = toNumber(r.token());
    if (!v)
      return std::nullopt;
    out.push_back(*v);
  } while (r.consume(','));
  if (!r.consume(']'))
    return std::nullopt;
  return out;
}

std::optional<std::vector<std::string>>
flashrt::abiElements(const std::string &json, const std::string &key) {
  Reader r{json};
  if (!r.findKey(key) || !r.consume('['))
    return std::nullopt;
  std::vector<std::string> out;
  if (r.consume(']'))
    return out;
  do {
    r.skipSpace();
    size_t start = r.i;
    if (!r.skipValue())
      return std::nullopt;
    out.push_back(json.substr(start, r.i - start));
  } while (r.consume(','));
  if (!r.consume(']'))
    return std::nullopt;
  return out;
}

std::optional<std::string> flashrt::abiObject(const std::string &json,
                                              const std::string &key) {
  Reader r{json};
  if (!r.findKey(key) || r.i >= json.size() || json[r.i] != '{')
    return std::nullopt;
  size_t start = r.i;
  if (!r.skipValue())
    return std::nullopt;
  return json.substr(start, r.i - start);
}

namespace {

int dtypeCode(const std::string &name) {
  for (int d : {FLASHRT_DTYPE_F16, FLASHRT_DTYPE_BF16, FLASHRT_DTYPE_F32,
                FLASHRT_DTYPE_I32})
    if (name == flashrt::dtypeName(d))
      return d;
  return 0;
}

const ArgRole kRoles[] = {ArgRole::Q,     ArgRole::K,      ArgRole::V,
                          ArgRole::O,     ArgRole::Lse,    ArgRole::DO,
                          ArgRole::DQ,    ArgRole::DK,     ArgRole::DV,
                          ArgRole::Alibi, ArgRole::Capture};

bool isCaptureRole(ArgRole r) {
  return r == ArgRole::Alibi || r == ArgRole::Capture;
}

/// Parses a backward record's "args" into abi.args; "" or what is wrong.
std::string parseArgs(const std::string &json, Abi &abi) {
  abi.args.clear();
  std::optional<std::vector<std::string>> elements = abiElements(json, "args");
  if (!elements)
    return hasKey(json, "args")
               ? "\"args\" is not an array"
               : "a backward record needs \"args\" (the role of each entry "
                 "argument: q, k, v, o, lse, do, dq, dk, dv, alibi, capture)";
  int seen[std::size(kRoles)] = {};
  for (size_t i = 0; i < elements->size(); ++i) {
    std::optional<std::string> name = jsonString((*elements)[i]);
    auto it =
        std::find_if(std::begin(kRoles), std::end(kRoles), [&](ArgRole r) {
          return name && *name == argRoleName(r);
        });
    if (it == std::end(kRoles))
      return "\"args\" entry " + std::to_string(i) + " (" + (*elements)[i] +
             ") is not one of q, k, v, o, lse, do, dq, dk, dv, alibi, capture";
    abi.args.push_back(*it);
    ++seen[it - std::begin(kRoles)];
  }
  for (size_t r = 0; r < std::size(kRoles); ++r) {
    ArgRole role = kRoles[r];
    if (role == ArgRole::Capture || (role == ArgRole::Alibi && seen[r] <= 1))
      continue;
    if (seen[r] != 1)
      return std::string("\"args\" names '") + argRoleName(role) + "' " +
             std::to_string(seen[r]) + " times; a backward entry takes " +
             (role == ArgRole::Alibi ? "at most one" : "exactly one");
  }
  return "";
}

/// Parses the "captures" array into abi.captures; "" or what is wrong.
std::string parseCaptures(const std::string &json, Abi &abi) {
  abi.captures.clear();
  // A backward entry's captures sit where its "args" puts them.
  std::vector<int> positions;
  for (size_t i = 0; i < abi.args.size(); ++i)
    if (isCaptureRole(abi.args[i]))
      positions.push_back(int(i));
  std::optional<std::vector<std::string>> elements =
      abiElements(json, "captures");
  if (!elements && (abiString(json, "captures") || abiNumber(json, "captures")))
    return "\"captures\" is not an array";
  size_t count = elements ? elements->size() : 0;
  if (abi.backward && positions.size() != count)
    return "\"args\" has " + std::to_string(positions.size()) +
           " alibi / capture arguments but \"captures\" lists " +
           std::to_string(count) + " tensors";
  if (!elements)
    return "";
  if (elements->size() > FLASHRT_MAX_CAPTURES)
    return "\"captures\" has " + std::to_string(elements->size()) +
           " tensors; the runtime passes at most " +
           std::to_string(FLASHRT_MAX_CAPTURES);
  int next = abi.backward ? (positions.empty() ? 0 : positions[0])
                          : 3 + abi.kvLens + abi.paged;
  for (size_t i = 0; i < elements->size(); ++i) {
    const std::string &e = (*elements)[i];
    std::string what = "capture " + std::to_string(i);
    CaptureAbi c;
    std::optional<std::string> dtype = abiString(e, "dtype");
    c.dtype = dtype ? dtypeCode(*dtype) : 0;
    if (!c.dtype)
      return what + " has no \"dtype\" of f32, i32, bf16 or f16";
    std::optional<double> rank = abiNumber(e, "rank");
    if (!rank || *rank != int(*rank) || *rank < 0 || *rank > 4)
      return what + " has no \"rank\" from 0 to 4 (flashrt_tensor's)";
    c.rank = int(*rank);
    // Without "arg": after the serving operands, in order (a backward
    // entry's: where "args" puts it).
    std::optional<double> arg = abiNumber(e, "arg");
    if (arg && abi.backward && *arg != int(*arg))
      return what + " has \"arg\" " + std::to_string(*arg) +
             ", not an argument index";
    if (arg && !abi.backward && (*arg != int(*arg) || *arg < next))
      return what + " has \"arg\" " + std::to_string(int64_t(*arg)) +
             ", not after Q, K, V, the serving operands and the captures "
             "before it";
    c.arg = arg ? int(*arg) : abi.backward ? positions[i] : next;
    if (abi.backward && c.arg != positions[i])
      return what + " has \"arg\" " + std::to_string(c.arg) +
             " but \"args\" has its alibi / capture argument at " +
             std::to_string(positions[i]);
    next = c.arg + 1;
    c.contiguous = abiBool(e, "contiguous").value_or(false);
    for (auto [key, dims] :
         {std::pair<const char *, std::vector<int64_t> *>{"shape", &c.shape},
          {"strides", &c.strides}}) {
      std::optional<std::vector<double>> values = abiNumbers(e, key);
      if (!values)
        continue; // Absent: all dynamic.
      if (values->size() != size_t(c.rank))
        return what + " has " + std::to_string(values->size()) + " \"" +
               key + "\" for rank " + std::to_string(c.rank);
      for (double x : *values) {
        if (x != int64_t(x) || x < -1)
          return what + " has a \"" + key + "\" entry that is not -1 or a "
                 "size";
        dims->push_back(int64_t(x));
      }
    }
    abi.captures.push_back(std::move(c));
  }
  // The operands after the captures (O, LSE) follow the last one.
  int arity = abi.entryArity();
  if (!abi.backward && !abi.captures.empty() &&
      abi.captures.back().arg >= arity - 1 - abi.lse)
    return "capture " + std::to_string(abi.captures.size() - 1) +
           " is argument " + std::to_string(abi.captures.back().arg) +
           " of an entry with " + std::to_string(arity) +
           " operands: O must follow it";
  return "";
}

/// Parses "block_mask" into abi.blockMask*; "" or what is wrong. Needs the
/// captures parsed: the hint is one of them.
std::string parseBlockMask(const std::string &json, Abi &abi) {
  abi.blockMaskCapture = -1;
  abi.blockMaskRows = 0;
  std::optional<std::string> record = abiObject(json, "block_mask");
  if (!record) {
    Reader r{json};
    return r.findKey("block_mask") ? "\"block_mask\" is not an object" : "";
  }
  std::optional<double> arg = abiNumber(*record, "arg");
  std::optional<double> rows = abiNumber(*record, "rows");
  if (!rows || *rows != int64_t(*rows) || *rows < 1)
    return "\"block_mask\" has no integer \"rows\" >= 1";
  if (!arg || *arg != int(*arg))
    return "\"block_mask\" has no integer \"arg\"";
  for (size_t i = 0; i < abi.captures.size(); ++i) {
    const CaptureAbi &c = abi.captures[i];
    if (c.arg != int(*arg))
      continue;
    if (c.dtype != FLASHRT_DTYPE_I32 || c.rank != 4 ||
        (!c.shape.empty() && c.shape[3] != 4 && c.shape[3] != -1))
      return "\"block_mask\" names capture " + std::to_string(i) +
             ", which is not i32 [B or 1, Hq or 1, R, 4]";
    abi.blockMaskCapture = int(i);
    abi.blockMaskRows = int64_t(*rows);
    return "";
  }
  return "\"block_mask\" names argument " + std::to_string(int64_t(*arg)) +
         ", which is none of the \"captures\" (the runtime passes the hint "
         "with them)";
}

} // namespace

const char *flashrt::argRoleName(ArgRole role) {
  switch (role) {
  case ArgRole::Q:
    return "q";
  case ArgRole::K:
    return "k";
  case ArgRole::V:
    return "v";
  case ArgRole::O:
    return "o";
  case ArgRole::Lse:
    return "lse";
  case ArgRole::DO:
    return "do";
  case ArgRole::DQ:
    return "dq";
  case ArgRole::DK:
    return "dk";
  case ArgRole::DV:
    return "dv";
  case ArgRole::Alibi:
    return "alibi";
  case ArgRole::Capture:
    return "capture";
  }
  return "?";
}

int flashrt::dtypeBytes(int dtype) {
  switch (dtype) {
  case FLASHRT_DTYPE_F16:
  case FLASHRT_DTYPE_BF16:
    return 2;
  case FLASHRT_DTYPE_F32:
  case FLASHRT_DTYPE_I32:
    return 4;
  default:
    return 0;
  }
}

const char *flashrt::dtypeName(int dtype) {
  switch (dtype) {
  case FLASHRT_DTYPE_F16:
    return "f16";
  case FLASHRT_DTYPE_BF16:
    return "bf16";
  case FLASHRT_DTYPE_F32:
    return "f32";
  case FLASHRT_DTYPE_I32:
    return "i32";
  default:
    return "unknown";
  }
}

std::string flashrt::parseAbi(const std::string &json, Abi &abi) {
  // Absent in older artifacts, which are all forward entries.
  std::optional<std::string> kind = abiString(json, "kind");
  if (!kind && hasKey(json, "kind"))
    return "\"kind\" is not a string";
  if (kind && *kind != "forward" && *kind != "backward")
    return "unknown \"kind\" '" + *kind +
           "': this runtime runs \"forward\" and \"backward\" entries (is "
           "the artifact newer than libflashrt?)";
  abi.backward = kind && *kind == "backward";
  abi.args.clear();
  std::optional<std::string> dtype = abiString(json, "dtype");
  if (!dtype)
    return "no \"dtype\"";
  abi.dtypeName = *dtype;
  if (*dtype == "bf16")
    abi.dtype = FLASHRT_DTYPE_BF16;
  else if (*dtype == "f16")
    abi.dtype = FLASHRT_DTYPE_F16;
  else if (*dtype == "f32")
    abi.dtype = FLASHRT_DTYPE_F32;
  else
    return "unknown \"dtype\" '" + *dtype + "' (expected bf16, f16 or f32)";

  std::optional<double> d = abiNumber(json, "head_dim");
  if (!d || *d < 1 || *d != int64_t(*d))
    return "no positive integer \"head_dim\"";
  abi.headDim = int64_t(*d);
  // Dv defaults to D, as in the op.
  std::optional<double> dv = abiNumber(json, "head_dim_v");
  if (dv && (*dv < 1 || *dv != int64_t(*dv)))
    return "\"head_dim_v\" is not a positive integer";
  abi.headDimV = dv ? int64_t(*dv) : abi.headDim;
  abi.lse = abiBool(json, "lse").value_or(false);
  std::optional<double> bits = abiNumber(json, "index_bits");
  if (bits && *bits != 32 && *bits != 64)
    return "\"index_bits\" must be 32 or 64";
  abi.indexBits = bits ? int(*bits) : 32;

  abi.kvLens = abiBool(json, "kv_lens").value_or(false);
  abi.paged = abiBool(json, "paged").value_or(false);
  abi.splitKv = abiBool(json, "split_kv").value_or(false);
  for (auto [key, shape] : {std::pair<const char *, std::vector<int64_t> *>{
                                "q_shape", &abi.qShape},
                            {"kv_shape", &abi.kvShape}}) {
    shape->clear();
    std::optional<std::vector<double>> dims = abiNumbers(json, key);
    if (!dims)
      continue; // Absent (old artifacts) or null: nothing static.
    if (dims->size() != 4)
      return std::string("\"") + key + "\" must have 4 dims";
    for (double x : *dims) {
      if (x != int64_t(x) || x < -1)
        return std::string("\"") + key + "\" has a dim that is not -1 or a "
               "size";
      shape->push_back(int64_t(x));
    }
  }

  if (abi.backward) {
    // The backward takes LSE as an input and has no serving operands.
    for (const char *key : {"lse", "kv_lens", "paged", "split_kv"})
      if (abiBool(json, key).value_or(false))
        return std::string("a backward record has \"") + key +
               "\": true; the backward's operands are its \"args\"";
    abi.lse = abi.kvLens = abi.paged = abi.splitKv = false;
    if (std::string why = parseArgs(json, abi); !why.empty())
      return why;
  }
  if (std::string why = parseCaptures(json, abi); !why.empty())
    return why;
  if (std::string why = parseBlockMask(json, abi); !why.empty())
    return why;
  std::optional<double> numArgs = abiNumber(json, "num_args");
  abi.numArgs = numArgs ? int(*numArgs) : -1;
  if (numArgs && abi.backward && *numArgs != abi.entryArity())
    return "\"num_args\" is " + std::to_string(int64_t(*numArgs)) +
           " but \"args\" names " + std::to_string(abi.entryArity());
  if (numArgs && *numArgs != abi.entryArity())
    return "\"num_args\" is " + std::to_string(int64_t(*numArgs)) +
           " but Q, K, V, O" + (abi.lse ? ", LSE" : "") +
           (abi.kvLens ? ", kv_lens" : "") + (abi.paged ? ", block_table" : "") +
           " and " + std::to_string(abi.captures.size()) +
           " captures make " + std::to_string(abi.entryArity());

  abi.arch = abiString(json, "arch").value_or("");
  if (!abi.arch.empty()) {
    // sm_XY or sm_XYZ (sm_100), optional suffix a/f.
    const std::string &a = abi.arch;
    size_t n = 3;
    while (n < a.size() && std::isdigit((unsigned char)a[n]))
      ++n;
    if (a.compare(0, 3, "sm_") != 0 || n < 5)
      return "\"arch\" '" + a + "' is not of the form sm_XY";
    int number = std::atoi(a.c_str() + 3);
    abi.archMajor = number / 10;
    abi.archMinor = number % 10;
    abi.archSpecific = a.substr(n) == "a";
  }
  return "";
}
