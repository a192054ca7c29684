/* callwire: the C API (C99). A thin facade over the C++ core (src/capi/).
 *
 * Values (cw_value: build, read, copy, compare, encode), an XML-RPC server (cw_server, with
 * handlers that see their call through cw_call) and an XML-RPC client (cw_client: synchronous
 * and asynchronous calls with deadlines). examples/c/ shows each in a short program.
 *
 * The declarations are in one header per subject under callwire/c/, all included here, as
 * curl.h includes easy.h and multi.h; `#include <callwire.h>` is all a program needs:
 *   callwire/c/common.h     cw_status, cw_error, cw_free, and the rules for ownership,
 *                           options structs, errors and threads
 *   callwire/c/value.h      cw_value: building and reading values
 *   callwire/c/described.h  cw_arg, cw_out: values described in place
 *   callwire/c/xml.h        the XML-RPC codec, cw_dialect, cw_reader_limits
 *   callwire/c/json.h       the JSON-RPC 2.0 codec, cw_json_limits
 *   callwire/c/framing.h    cw_framing, cw_tls_version
 *   callwire/c/tls.h        cw_tls_options: TLS settings for servers and clients
 *   callwire/c/trace.h      the wire trace
 *   callwire/c/handler.h    cw_call: a method's handler, its parameters and answer
 *   callwire/c/server.h     cw_server
 *   callwire/c/registry.h   cw_registry: dispatch without a server, CGI
 *   callwire/c/client.h     cw_client
 * Each compiles on its own, but how the API is split among them may change: include
 * callwire.h. */
#ifndef CALLWIRE_H
#define CALLWIRE_H

/** @file callwire.h
 *  The C API (C99): values, servers, handlers, clients, in one header per subject (listed
 *  above). The rules for ownership, errors, options structs and threads are in the comment at
 *  the top of callwire/c/common.h and in docs/c-api.md. */

#include "callwire/c/client.h"
#include "callwire/c/common.h"
#include "callwire/c/described.h"
#include "callwire/c/framing.h"
#include "callwire/c/handler.h"
#include "callwire/c/json.h"
#include "callwire/c/registry.h"
#include "callwire/c/server.h"
#include "callwire/c/tls.h"
#include "callwire/c/trace.h"
#include "callwire/c/value.h"
#include "callwire/c/xml.h"

#endif /* CALLWIRE_H */
