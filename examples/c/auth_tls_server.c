/* auth_tls_server: a server that speaks HTTPS and asks for HTTP Basic credentials, in C.
 * Offers sample.add and auth.whoami (the user the call was made as).
 *
 *   auth_tls_server --cert CERT.pem --key KEY.pem --user USER --password PASSWORD
 *                   [--listen ADDRESS]
 *
 * A throwaway certificate for 127.0.0.1, valid one day (one command line):
 *   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1
 *     -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout key.pem -out cert.pem
 * and a client that trusts it: auth_tls_client URL --ca-file cert.pem --user ... --password ...
 *
 * A password on the command line is visible to other users of the machine (ps); a real server
 * would check a file of salted hashes, or a PAM or LDAP service, in the same callback. */
#define _POSIX_C_SOURCE 200809L
#include <callwire.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

struct credentials {
  const char* user;
  const char* password;
};

static cw_server* volatile g_server = NULL;

static void on_signal(int signo) {
  (void)signo;
  if (g_server) cw_server_stop(g_server); /* async-signal-safe */
}

/* Runs on the server's threads, possibly several at once: it only reads `user_data`. The
 * comparison takes the same time wherever a guess goes wrong. */
static int check_credentials(const char* user, size_t user_len, const char* password,
                             size_t password_len, void* user_data) {
  const struct credentials* c = (const struct credentials*)user_data;
  return cw_constant_time_equal(user, user_len, c->user, strlen(c->user)) &
         cw_constant_time_equal(password, password_len, c->password, strlen(c->password));
}

static cw_status sample_add(cw_call* call, void* user_data) {
  int32_t a, b;
  cw_status st;
  (void)user_data;
  if ((st = cw_call_param_int(call, 0, &a)) || (st = cw_call_param_int(call, 1, &b))) return st;
  return cw_call_return_int(call, a + b);
}

static cw_status whoami(cw_call* call, void* user_data) {
  const char* user = cw_call_user(call);
  (void)user_data;
  return cw_call_return_string(call, user, strlen(user));
}

int main(int argc, char** argv) {
  struct credentials credentials = {NULL, NULL};
  cw_server_options options;
  cw_tls_options tls;
  cw_server* server = NULL;
  cw_error err;
  struct sigaction sa;
  int i;

  cw_server_options_init(&options);
  cw_tls_options_init(&tls);
  options.listen = "127.0.0.1:0";
  options.tls = &tls; /* copied by cw_server_new */
  for (i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--listen") == 0) {
      options.listen = argv[i + 1];
    } else if (strcmp(argv[i], "--cert") == 0) {
      tls.cert_file = argv[i + 1];
    } else if (strcmp(argv[i], "--key") == 0) {
      tls.key_file = argv[i + 1];
    } else if (strcmp(argv[i], "--user") == 0) {
      credentials.user = argv[i + 1];
    } else if (strcmp(argv[i], "--password") == 0) {
      credentials.password = argv[i + 1];
    } else {
      break;
    }
  }
  if (i != argc || !tls.cert_file || !tls.key_file || !credentials.user || !credentials.password) {
    fprintf(stderr,
            "usage: %s --cert CERT.pem --key KEY.pem --user USER --password PASSWORD "
            "[--listen ADDRESS]\n",
            argv[0]);
    return 2;
  }
  /* Every request must carry credentials this accepts, else 401. */
  options.authenticate = check_credentials;
  options.authenticate_data = &credentials;
  options.realm = "callwire example";

  /* An unreadable certificate or key, or a key that does not match, fails cw_server_start. */
  if (cw_server_new(&options, &server, &err) != CW_OK ||
      cw_server_add_method(server, "sample.add", sample_add, NULL, "i:ii", "Adds two integers.",
                           &err) != CW_OK ||
      cw_server_add_method(server, "auth.whoami", whoami, NULL,
                           "s:", "The user name this call was authenticated as.", &err) != CW_OK ||
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
  printf("listening on %s\n", cw_server_url(server));
  fflush(stdout);
  cw_server_wait(server);
  g_server = NULL;
  cw_server_free(server);
  printf("stopped\n");
  return 0;
}
