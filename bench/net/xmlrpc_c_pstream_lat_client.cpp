// callwire bench: round-trip latency of sample.add with xmlrpc-c's C++ packet-stream client
// (clientXmlTransport_pstream over a TCP connection this program opens, client_xml, one
// carriageParm_pstream), the parameters built once. xmlrpc-c's client makes one call at a
// time on the one connection it is given.
//
// Usage: xmlrpc_c_pstream_lat_client pstream://HOST:PORT [--seconds S | --calls N]
//                                    [--warmup N] [--server-pid P]
// Prints one JSON line (bench/net/lat_common.hpp). bench/net_run.py pairs it with
// xmlrpc_c_pstream_server. TCP_NODELAY on, as every client of these benchmarks.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <xmlrpc-c/base.hpp>
#include <xmlrpc-c/client.hpp>
#include <xmlrpc-c/client_transport.hpp>

#include "lat_common.hpp"

int main(int argc, char** argv) {
  const char* scheme = "pstream://";
  if (argc < 2 || std::strncmp(argv[1], scheme, std::strlen(scheme)) != 0) {
    std::fprintf(stderr,
                 "usage: %s pstream://HOST:PORT [--seconds S | --calls N] [--warmup N] "
                 "[--server-pid P]\n",
                 argv[0]);
    return 2;
  }
  lat::Options options = lat::parse_options(argc, argv, 2);
  int fd = lat::connect_tcp(argv[1] + std::strlen(scheme));
  int status = 1;
  try {
    xmlrpc_c::clientXmlTransport_pstream transport(
        xmlrpc_c::clientXmlTransport_pstream::constrOpt().fd(fd));
    xmlrpc_c::client_xml client(&transport);
    xmlrpc_c::carriageParm_pstream carriage;
    xmlrpc_c::paramList params;
    params.add(xmlrpc_c::value_int(2));
    params.add(xmlrpc_c::value_int(3));
    status = lat::run("xmlrpc-c pstream", options, [&] {
      // An rpc is spent once called: one per call, as xmlrpc-c's examples do.
      xmlrpc_c::rpcPtr rpc("sample.add", params);
      rpc->call(&client, &carriage);
      return rpc->isSuccessful() && xmlrpc_c::value_int(rpc->getResult()).cvalue() == 5;
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xmlrpc_c_pstream_lat_client: %s\n", e.what());
    status = 1;
  }
  close(fd);
  return status;
}
