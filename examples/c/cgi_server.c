/* cgi_server: sample.add as a CGI program, in C. Any web server that runs CGI programs runs
 * it once per request: lighttpd's mod_cgi, Apache's mod_cgi, nginx through fcgiwrap. The
 * web server does the HTTP (and TLS, authentication, logging); the program reads the CGI
 * environment and the body, and writes the answer. xmlrpc-c's counterpart is
 * xmlrpc_server_cgi_process_call.
 *
 * A lighttpd configuration that serves it at /RPC2 (docs/cgi.md has the whole file):
 *
 *   server.modules += ("mod_cgi", "mod_alias")
 *   alias.url = ("/RPC2" => "/usr/local/lib/cgi-bin/cgi_server")
 *   cgi.assign = ("" => "")
 *
 * Try it without a web server: the CGI environment by hand, the call on standard input.
 *
 *   printf '<methodCall><methodName>sample.add</methodName><params><param><value><int>5</int>\
 *   </value></param><param><value><int>3</int></value></param></params></methodCall>' >call.xml
 *   REQUEST_METHOD=POST CONTENT_LENGTH=$(wc -c <call.xml) ./cgi_server <call.xml */
#include <callwire.h>
#include <stdio.h>
#include <string.h>

static cw_status sample_add(cw_call* call, void* user_data) {
  int32_t a, b;
  cw_status st;
  (void)user_data;
  if ((st = cw_call_param_int(call, 0, &a)) || (st = cw_call_param_int(call, 1, &b))) return st;
  return cw_call_return_int(call, a + b);
}

/* Who called: the web server passes the peer and any authenticated user on. */
static cw_status whoami(cw_call* call, void* user_data) {
  const char* peer = cw_call_peer(call);
  (void)user_data;
  return cw_call_return_string(call, peer, strlen(peer));
}

int main(void) {
  cw_registry* registry = NULL;
  cw_error err;
  int status;

  if (cw_registry_new(NULL, &registry, &err) != CW_OK ||
      cw_registry_add_method(registry, "sample.add", sample_add, NULL, "i:ii", "Adds two integers.",
                             &err) != CW_OK ||
      cw_registry_add_method(registry, "whoami", whoami, NULL, "s:", "The caller's address.",
                             &err) != CW_OK) {
    /* Standard error goes to the web server's error log. */
    fprintf(stderr, "cgi_server: %s\n", err.message);
    cw_registry_free(registry);
    return 1;
  }
  status = cw_serve_cgi(registry);
  cw_registry_free(registry);
  return status;
}
