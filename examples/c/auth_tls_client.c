/* auth_tls_client: calls an HTTPS server with HTTP Basic credentials, in C.
 *
 *   auth_tls_client URL [--ca-file CA.pem] [--user USER --password PASSWORD]
 *
 * Calls auth.whoami and sample.add(5, 3); prints "user USER" and "8". On failure (a
 * certificate that does not verify, a refused password: HTTP 401) it says why and exits 1.
 * The server's certificate is always verified: against CA.pem when given, else the system's
 * store. */
#include <callwire.h>
#include <stdio.h>
#include <string.h>

static void print_failure(const char* what, const cw_error* err) {
  if (err->status == CW_HTTP_STATUS) {
    fprintf(stderr, "%s failed: HTTP %d: %s\n", what, err->http_status, err->message);
  } else {
    fprintf(stderr, "%s failed (%s): %s\n", what, cw_status_name(err->status), err->message);
  }
}

int main(int argc, char** argv) {
  cw_client_options options;
  cw_tls_options tls;
  cw_client* client = NULL;
  cw_value *who = NULL, *a = NULL, *b = NULL, *sum = NULL;
  const cw_value* params[2];
  const char* name;
  size_t name_len;
  int32_t n;
  cw_error err;
  int i, status = 1;

  cw_client_options_init(&options);
  cw_tls_options_init(&tls);
  options.tls = &tls; /* copied by cw_client_new */
  for (i = 2; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--ca-file") == 0) {
      tls.ca_file = argv[i + 1]; /* trust these CAs instead of the system's store */
    } else if (strcmp(argv[i], "--user") == 0) {
      options.user = argv[i + 1]; /* sent as HTTP Basic credentials with every call */
    } else if (strcmp(argv[i], "--password") == 0) {
      options.password = argv[i + 1];
    } else {
      break;
    }
  }
  if (argc < 2 || i != argc) {
    fprintf(stderr, "usage: %s URL [--ca-file CA.pem] [--user USER --password PASSWORD]\n",
            argv[0]);
    return 2;
  }
  if (cw_client_new(argv[1], &options, &client, &err) != CW_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  if (cw_client_call(client, "auth.whoami", NULL, 0, NULL, &who, &err) != CW_OK) {
    print_failure("auth.whoami", &err);
  } else if (cw_value_get_string(who, &name, &name_len) != CW_OK) {
    fprintf(stderr, "auth.whoami answered something other than a string\n");
  } else {
    printf("user %.*s\n", (int)name_len, name);
    if (cw_value_new_int(5, &a) == CW_OK && cw_value_new_int(3, &b) == CW_OK) {
      params[0] = a;
      params[1] = b;
      if (cw_client_call(client, "sample.add", params, 2, NULL, &sum, &err) != CW_OK) {
        print_failure("sample.add", &err);
      } else if (cw_value_get_int(sum, &n) == CW_OK) {
        printf("%d\n", (int)n);
        status = 0;
      }
    }
  }
  cw_value_free(sum);
  cw_value_free(b);
  cw_value_free(a);
  cw_value_free(who);
  cw_client_free(client);
  return status;
}
