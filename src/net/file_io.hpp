// Internal: blocking I/O on descriptors that are not the library's sockets (a CGI program's
// standard input and output, and its environment), and removing a Unix socket's file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace callwire::net {

/// Writes all of `bytes` to blocking `fd`; false when it fails first. EINTR is retried.
bool write_all(int fd, std::string_view bytes) noexcept;

/// Reads exactly `n` bytes from blocking `fd` into `dst`; false when the input ends or fails
/// first. EINTR is retried.
bool read_exact(int fd, char* dst, size_t n) noexcept;

/// The process's standard input and output descriptors.
int standard_input() noexcept;
int standard_output() noexcept;
/// The process's environment: "NAME=value" strings, null-terminated (POSIX's `environ`).
char** process_environment() noexcept;

/// Removes the file at `path` (a Unix socket's, once its listener has closed); best effort.
void remove_file(const std::string& path) noexcept;

}  // namespace callwire::net
