/* callwire: the C API's connections: framings and TLS versions.
 *
 * Part of the C API: include <callwire.h>, which includes this header with the others
 * (callwire/c/common.h has the rules for ownership, errors, options structs and threads). */
#ifndef CALLWIRE_C_FRAMING_H
#define CALLWIRE_C_FRAMING_H

/** @file callwire/c/framing.h
 *  What servers and clients both say of a connection: its framing (cw_framing, for the
 *  connections they adopt) and the oldest TLS version they accept (cw_tls_version). */

#ifdef __cplusplus
extern "C" {
#endif

/** How requests travel on a connection handed to the server (cw_server_adopt_connection,
 *  cw_server_serve_connection), as a listener's URL scheme says it for its own. */
typedef enum cw_framing {
  CW_FRAMING_HTTP = 0,       /**< HTTP/1.1 ("HOST:PORT" listeners); TLS over TCP when configured */
  CW_FRAMING_SCGI = 1,       /**< SCGI, from a web server ("scgi://") */
  CW_FRAMING_PSTREAM = 2,    /**< xmlrpc-c's packet stream ("pstream://") */
  CW_FRAMING_JSON_LINES = 3, /**< newline-delimited JSON-RPC ("jsonl://") */
  CW_FRAMING_WEBSOCKET = 4   /**< HTTP/1.1 that also takes WebSocket upgrades ("ws://") */
} cw_framing;

/** The oldest TLS version a server or client accepts (cw_tls_options.min_version). */
typedef enum cw_tls_version {
  CW_TLS_DEFAULT = 0, /**< TLS 1.2 */
  CW_TLS_1_2 = 12,    /**< TLS 1.2 or later */
  CW_TLS_1_3 = 13     /**< TLS 1.3 only */
} cw_tls_version;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALLWIRE_C_FRAMING_H */
