/* pstream_inetd_server: serves sample.add over xmlrpc-c's packet stream on the connection it
 * is given as standard input, until the client closes it, in C: callwire's take on xmlrpc-c's
 * pstream_inetd_server. Whatever accepted the connection started it (inetd's "stream tcp
 * nowait", systemd's Accept=yes, `systemd-socket-activate --inetd -l 127.0.0.1:8080 ./...`).
 *
 * Standard output is the same socket: nothing is printed there; errors go to standard error.
 * Exit status 0 once the client has closed; 1 when standard input is no connected socket. */
#define _POSIX_C_SOURCE 200809L
#include <callwire.h>
#include <stdio.h>
#include <unistd.h>

static cw_status sample_add(cw_call* call, void* user_data) {
  int32_t a, b;
  cw_status st;
  (void)user_data;
  if ((st = cw_call_param_int(call, 0, &a)) || (st = cw_call_param_int(call, 1, &b))) return st;
  return cw_call_return_int(call, a + b);
}

int main(void) {
  cw_server_options options;
  cw_server* server = NULL;
  cw_error err;
  cw_status st;

  cw_server_options_init(&options);
  options.idle_timeout_ms = 10 * 60 * 1000;
  st = cw_server_new(&options, &server, &err);
  if (st == CW_OK)
    st = cw_server_add_method(server, "sample.add", sample_add, NULL, "i:ii", "Adds two integers.",
                              &err);
  /* Instead of cw_server_start: no listener, this one connection, until it closes. */
  if (st == CW_OK) st = cw_server_serve_connection(server, STDIN_FILENO, CW_FRAMING_PSTREAM, &err);
  if (st != CW_OK) fprintf(stderr, "pstream_inetd_server: %s\n", err.message);
  cw_server_free(server);
  return st == CW_OK ? 0 : 1;
}
