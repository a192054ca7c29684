#include "command_signals.hpp"

#include <cstdio>
#include <utility>

#if !defined(_WIN32)
#include <unistd.h>
#endif

#include "terminal_text.hpp"

namespace callwire::tool {

namespace {

Server* g_server = nullptr;
volatile std::sig_atomic_t* g_flag = nullptr;

extern "C" void on_stop_signal(int) {
  if (g_server) g_server->stop();
}

extern "C" void on_interrupt_signal(int signal) {
  if (g_flag) *g_flag = 1;
#if defined(_WIN32)
  std::signal(signal, on_interrupt_signal);  // the C runtime's handlers are one-shot
#else
  (void)signal;
#endif
}

}  // namespace

void stop_on_signals(Server* server) {
  g_server = server;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

#if defined(_WIN32)

void interrupt_on_signals(volatile std::sig_atomic_t* flag) {
  g_flag = flag;
  std::signal(SIGINT, on_interrupt_signal);
  std::signal(SIGTERM, on_interrupt_signal);
}

std::thread reload_on_sighup(Server&) { return {}; }
void stop_reloading(std::thread&) {}

#else

void interrupt_on_signals(volatile std::sig_atomic_t* flag) {
  g_flag = flag;
  // sigaction without SA_RESTART: a wait the signal lands in returns at once.
  struct sigaction action {};
  action.sa_handler = on_interrupt_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

namespace {

// The handler only writes a byte to a pipe (write is async-signal-safe); a thread reads it and
// calls Server::reload_tls, which reads files.
int g_reload_pipe[2] = {-1, -1};

extern "C" void on_reload_signal(int) {
  if (g_reload_pipe[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] ssize_t n = ::write(g_reload_pipe[1], &byte, 1);
  }
}

}  // namespace

std::thread reload_on_sighup(Server& server) {
  if (::pipe(g_reload_pipe) != 0) return {};
  std::signal(SIGHUP, on_reload_signal);
  return std::thread([&server, fd = g_reload_pipe[0]] {
    char byte;
    while (::read(fd, &byte, 1) == 1) {
      Status reloaded = server.reload_tls();
      if (reloaded)
        std::fprintf(stderr, "callwire: SIGHUP: TLS certificate reloaded\n");
      else
        std::fprintf(stderr, "callwire: SIGHUP: TLS certificate not reloaded: %s\n",
                     terminal_text(reloaded.error().message).c_str());
    }
    ::close(fd);
  });
}

void stop_reloading(std::thread& reloader) {
  if (!reloader.joinable()) return;
  std::signal(SIGHUP, SIG_DFL);
  ::close(std::exchange(g_reload_pipe[1], -1));
  reloader.join();
}

#endif

}  // namespace callwire::tool
