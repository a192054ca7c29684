// callwire tests: finding corpus files at run time, so that adding a file adds a test case.
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace callwire::testing {

struct CorpusFile {
  std::string group;  ///< "valid", "invalid", "fuzz"
  std::string name;   ///< the file name without its extension
  std::filesystem::path path;
};

/// Every regular file in `dir` whose name ends in `extension` ("" for all), sorted by name.
/// A missing directory gives an empty list.
inline std::vector<CorpusFile> scan_corpus(const std::filesystem::path& dir,
                                           const std::string& group, const std::string& extension) {
  std::vector<CorpusFile> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file()) continue;
    const auto& path = entry.path();
    std::string file = path.filename().string();
    if (file.empty() || file[0] == '.') continue;
    if (!extension.empty() && path.extension() != extension) continue;
    files.push_back({group, extension.empty() ? file : path.stem().string(), path});
  }
  std::sort(files.begin(), files.end(),
            [](const CorpusFile& a, const CorpusFile& b) { return a.path < b.path; });
  return files;
}

/// The whole file, bytes as they are.
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A GoogleTest parameter name: letters, digits and '_' only, prefixed by the group.
inline std::string test_name(const CorpusFile& f) {
  std::string out = f.group + "_";
  for (char c : f.name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

/// How GoogleTest (and so ctest's test names) shows a case: its directory and file name.
inline void PrintTo(const CorpusFile& f, std::ostream* os) {
  *os << f.path.parent_path().filename().string() << "/" << f.path.filename().string();
}

}  // namespace callwire::testing
