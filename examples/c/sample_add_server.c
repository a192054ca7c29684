/* sample_add_server: the smallest useful XML-RPC server, in C. callwire's take on xmlrpc-c's
 * xmlrpc_sample_add_server: one method, sample.add(int, int) -> int, plus the system.*
 * methods (listMethods, methodSignature, methodHelp, multicall, ...).
 *
 *   sample_add_server [--listen ADDRESS]
 *
 * ADDRESS is "HOST:PORT", "[IPV6]:PORT", "unix:PATH", or "scgi://HOST:PORT" for a web server in
 * front (examples/nginx/callwire-scgi.conf); the default 127.0.0.1:0 lets the
 * system pick a free port. The server prints "listening on URL" once it accepts calls, and
 * stops cleanly on Ctrl-C (SIGINT) or SIGTERM. Try it with sample_add_client URL. */
#define _POSIX_C_SOURCE 200809L
#include <callwire.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* cw_server_stop is async-signal-safe, so the signal handler may call it directly. */
static cw_server* volatile g_server = NULL;

static void on_signal(int signo) {
  (void)signo;
  if (g_server) cw_server_stop(g_server);
}

/* The signature "i:ii" given at registration is checked before this runs (a wrong call gets
 * fault -32602), so the getters cannot fail here; checking them costs nothing anyway. */
static cw_status sample_add(cw_call* call, void* user_data) {
  int32_t a, b;
  cw_status st;
  (void)user_data;
  if ((st = cw_call_param_int(call, 0, &a)) || (st = cw_call_param_int(call, 1, &b))) return st;
  return cw_call_return_int(call, a + b);
}

int main(int argc, char** argv) {
  cw_server_options options;
  cw_server* server = NULL;
  cw_error err;
  struct sigaction sa;
  int i;

  cw_server_options_init(&options);
  options.listen = "127.0.0.1:0";
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
      options.listen = argv[++i];
    } else {
      fprintf(stderr, "usage: %s [--listen ADDRESS]\n", argv[0]);
      return 2;
    }
  }

  if (cw_server_new(&options, &server, &err) != CW_OK ||
      cw_server_add_method(server, "sample.add", sample_add, NULL, "i:ii", "Adds two integers.",
                           &err) != CW_OK ||
      cw_server_start(server, &err) != CW_OK) {
    fprintf(stderr, "cannot start: %s\n", err.message);
    cw_server_free(server);
    return 1;
  }

  g_server = server;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);

  /* Flushed at once: a script reading this line through a pipe must not wait. */
  printf("listening on %s\n", cw_server_url(server));
  fflush(stdout);

  cw_server_wait(server); /* returns once stopped and the calls in flight have finished */
  g_server = NULL;
  cw_server_free(server);
  printf("stopped\n");
  return 0;
}
