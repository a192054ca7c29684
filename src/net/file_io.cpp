#include "net/file_io.hpp"

#include <unistd.h>

#include <cerrno>

#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#endif

extern char** environ;  // POSIX: declared by no header

namespace callwire::net {

bool write_all(int fd, std::string_view bytes) noexcept {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(size_t(n));
  }
  return true;
}

bool read_exact(int fd, char* dst, size_t n) noexcept {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, dst + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += size_t(r);
  }
  return true;
}

// Windows opens them in text mode (CR LF translated, Ctrl-Z read as the end): a CGI's body and
// answer are bytes.
int standard_input() noexcept {
#if defined(_WIN32)
  _setmode(STDIN_FILENO, _O_BINARY);
#endif
  return STDIN_FILENO;
}
int standard_output() noexcept {
#if defined(_WIN32)
  _setmode(STDOUT_FILENO, _O_BINARY);
#endif
  return STDOUT_FILENO;
}
char** process_environment() noexcept { return environ; }

void remove_file(const std::string& path) noexcept { ::unlink(path.c_str()); }

}  // namespace callwire::net
