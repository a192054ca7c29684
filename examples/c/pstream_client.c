/* pstream_client: calls sample.add(5, 7) over xmlrpc-c's packet stream (XML-RPC without HTTP,
 * docs/pstream.md) and prints the sum, in C: callwire's take on xmlrpc-c's pstream_client.
 *
 *   pstream_client URL        e.g. pstream://127.0.0.1:8080 or pstream+unix:/run/app.sock
 *   pstream_client -          over the connected socket on standard input (socketexec's way)
 *
 * The same cw_client as for HTTP: the URL's scheme picks the packet stream; with "-" the
 * client is handed its connection instead (cw_client_adopt), as xmlrpc-c's is. Exit status 0 and
 * "12" on success; 1 and the reason on standard error otherwise. */
#include <callwire.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  cw_client* client = NULL;
  cw_value* a = NULL;
  cw_value* b = NULL;
  cw_value* sum = NULL;
  cw_error err;
  int32_t n = 0;
  int status = 1;

  if (argc != 2) {
    fprintf(stderr, "usage: %s pstream://HOST:PORT | pstream+unix:PATH | -\n", argv[0]);
    return 2;
  }
  if ((strcmp(argv[1], "-") == 0
           ? cw_client_adopt(STDIN_FILENO, CW_FRAMING_PSTREAM, NULL, &client, &err)
           : cw_client_new(argv[1], NULL, &client, &err)) != CW_OK) {
    fprintf(stderr, "%s: %s\n", argv[1], err.message);
    return 1;
  }
  if (cw_value_new_int(5, &a) == CW_OK && cw_value_new_int(7, &b) == CW_OK) {
    const cw_value* params[2];
    params[0] = a;
    params[1] = b;
    if (cw_client_call(client, "sample.add", params, 2, NULL, &sum, &err) != CW_OK) {
      fprintf(stderr, "sample.add failed (%s): %s\n", cw_status_name(err.status), err.message);
    } else if (cw_value_get_int(sum, &n) != CW_OK) {
      fprintf(stderr, "the server answered something other than an int\n");
    } else {
      printf("%d\n", (int)n);
      status = 0;
    }
  } else {
    fprintf(stderr, "out of memory\n");
  }
  cw_value_free(sum);
  cw_value_free(b);
  cw_value_free(a);
  cw_client_free(client);
  return status;
}
