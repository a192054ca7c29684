// A real HTTP proxy for the client's tests: Debian's tinyproxy, run in the foreground on
// loopback with a generated configuration, its log in a temporary directory, killed at the end.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace callwire::testing {

class Tinyproxy {
 public:
  struct Config {
    std::string user;  ///< BasicAuth user and password; empty: no authentication
    std::string password;
    std::vector<uint16_t> connect_ports;  ///< ConnectPort lines (tinyproxy: none = any port)
  };

  /// The tinyproxy program, or empty when it is not installed.
  static std::string program() {
    std::vector<std::string> dirs = {"/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"};
    if (const char* path = std::getenv("PATH")) {
      std::stringstream in(path);
      for (std::string dir; std::getline(in, dir, ':');)
        if (!dir.empty()) dirs.insert(dirs.begin(), dir);
    }
    for (const std::string& dir : dirs) {
      std::string candidate = dir + "/tinyproxy";
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return {};
  }

  /// Starts it and waits (at most some seconds) until it listens; ok() says whether it does,
  /// error() why not.
  explicit Tinyproxy(Config config = {}) : config_(std::move(config)) {
    std::string exe = program();
    if (exe.empty()) {
      error_ = "tinyproxy is not installed";
      return;
    }
    dir_ = std::filesystem::temp_directory_path() /
           ("callwire-tinyproxy-" + std::to_string(getpid()) + "-" + std::to_string(++serial()));
    std::filesystem::create_directories(dir_);
    // tinyproxy takes no port 0: take a free port from the kernel and release it; another
    // process may grab it meanwhile, so a proxy that fails to start is tried on a new one.
    for (int attempt = 0; attempt < 5 && pid_ < 0; ++attempt) {
      port_ = free_port();
      if (port_ == 0) continue;
      write_config();
      if (!spawn(exe)) return;
      if (!wait_listening(std::chrono::seconds(10))) stop();
    }
    if (pid_ < 0 && error_.empty()) error_ = "tinyproxy did not start: " + log();
  }
  ~Tinyproxy() {
    stop();
    if (!dir_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
    }
  }
  Tinyproxy(const Tinyproxy&) = delete;
  Tinyproxy& operator=(const Tinyproxy&) = delete;

  bool ok() const { return pid_ > 0; }
  const std::string& error() const { return error_; }
  uint16_t port() const { return port_; }
  /// "http://[user:password@]127.0.0.1:port".
  std::string url(const std::string& credentials = {}) const {
    return "http://" + (credentials.empty() ? "" : credentials + "@") +
           "127.0.0.1:" + std::to_string(port_);
  }
  /// Everything it has logged so far.
  std::string log() const {
    std::ifstream in(dir_ / "tinyproxy.log");
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
  }
  /// How many log lines hold `text`.
  size_t count(const std::string& text) const {
    std::stringstream lines(log());
    size_t n = 0;
    for (std::string line; std::getline(lines, line);) n += line.find(text) != std::string::npos;
    return n;
  }

 private:
  static int& serial() {
    static int n = 0;
    return n;
  }
  static uint16_t free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    uint16_t port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
      port = ntohs(a.sin_port);
    ::close(fd);
    return port;
  }
  void write_config() {
    std::ofstream conf(dir_ / "tinyproxy.conf", std::ios::trunc);
    conf << "Port " << port_ << "\n"
         << "Listen 127.0.0.1\n"
         << "Timeout 30\n"
         << "LogFile \"" << (dir_ / "tinyproxy.log").string() << "\"\n"
         << "LogLevel Info\n"
         << "MaxClients 32\n"
         << "Allow 127.0.0.1\n"
         << "DisableViaHeader Yes\n";
    for (uint16_t p : config_.connect_ports) conf << "ConnectPort " << p << "\n";
    if (!config_.user.empty())
      conf << "BasicAuth " << config_.user << " " << config_.password << "\n";
  }
  bool spawn(const std::string& exe) {
    std::string conf = (dir_ / "tinyproxy.conf").string();
    std::string out = (dir_ / "stderr.txt").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> argv = {const_cast<char*>(exe.c_str()), const_cast<char*>("-d"),
                               const_cast<char*>("-c"), conf.data(), nullptr};
    pid_t pid = -1;
    int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      error_ = "cannot start " + exe + ": " + std::strerror(rc);
      return false;
    }
    pid_ = pid;
    return true;
  }
  // Polls a connect to the port (a started proxy accepts at once); false when the proxy
  // exited (e.g. the port was taken) or the time is up.
  bool wait_listening(std::chrono::seconds limit) {
    auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(port_);
      bool up = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
      ::close(fd);
      if (up) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 200; ++i) {  // 2 s, then no more asking
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  Config config_;
  std::filesystem::path dir_;
  uint16_t port_ = 0;
  pid_t pid_ = -1;
  std::string error_;
};

}  // namespace callwire::testing
