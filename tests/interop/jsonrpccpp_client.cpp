// libjsonrpccpp's client (jsonrpc::HttpClient over libcurl + jsonrpc::Client, JSON-RPC 2.0)
// against a JSON-RPC server: the peer test_json_rpc.py points at `callwire serve`.
//
// Usage: jsonrpccpp_client URL
//
// Prints one line per step (test_json_rpc.py checks them) and exits 0; any exception the steps
// do not expect ends it with status 1 and the reason on stderr. Every HTTP exchange is bounded
// by HttpClient::SetTimeout.
//
//   add 5                              sample.add(2, 3), positional
//   echo ["abc",1.5,true,null,{"a":1},9007199254740993]
//                                      echo of every JSON type, and an integer beyond 2^53
//   fault -32601 MESSAGE               no.such.method: JsonRpcException with the server's code
//   fault -32602 MESSAGE               sample.add("x", 1)
//   notification ok                    CallNotification("sample.add", [1, 2])
//   notification exception CODE 'MESSAGE'
//                                      ... when the library refuses the answer: libjsonrpccpp
//                                      before 1.3.0 takes only HTTP 200, and a server answers a
//                                      notification with 204 and no body (its issue #278)
//   batch 1 3                          BatchCall: sample.add(1, 2), id 1
//   batch 2 30                         sample.add(10, 20), id 2
//                                      (a notification sample.add(5, 5) in between: no answer)
//   batch 3 error -32601               no.such.method, id 3
//   batch errors 1                     BatchResponse::hasErrors
#include <jsonrpccpp/client.h>
#include <jsonrpccpp/client/connectors/httpclient.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

namespace {

constexpr long kTimeoutMs = 10000;

std::string compact(const Json::Value& value) {
  Json::FastWriter writer;
  std::string text = writer.write(value);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

Json::Value array_of(std::initializer_list<Json::Value> values) {
  Json::Value array(Json::arrayValue);
  for (const Json::Value& v : values) array.append(v);
  return array;
}

void expect_fault(jsonrpc::Client& client, const std::string& method, const Json::Value& params) {
  try {
    Json::Value result = client.CallMethod(method, params);
    std::cout << "no fault " << compact(result) << "\n";
  } catch (const jsonrpc::JsonRpcException& e) {
    std::cout << "fault " << e.GetCode() << " " << e.GetMessage() << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s URL\n", argv[0]);
    return 2;
  }
  try {
    jsonrpc::HttpClient http(argv[1]);
    http.SetTimeout(kTimeoutMs);
    jsonrpc::Client client(http, jsonrpc::JSONRPC_CLIENT_V2);

    std::cout << "add " << client.CallMethod("sample.add", array_of({2, 3})).asInt() << "\n";

    Json::Value object(Json::objectValue);
    object["a"] = 1;
    Json::Value everything = array_of({"abc", 1.5, true, Json::Value(Json::nullValue), object,
                                       Json::Value(Json::Int64(9007199254740993LL))});
    std::cout << "echo " << compact(client.CallMethod("echo", everything)) << "\n";

    expect_fault(client, "no.such.method", Json::Value(Json::arrayValue));
    expect_fault(client, "sample.add", array_of({"x", 1}));

    try {
      client.CallNotification("sample.add", array_of({1, 2}));
      std::cout << "notification ok\n";
    } catch (const jsonrpc::JsonRpcException& e) {
      std::cout << "notification exception " << e.GetCode() << " '" << e.GetMessage() << "'\n";
    }

    jsonrpc::BatchCall batch;
    int first = batch.addCall("sample.add", array_of({1, 2}));
    int second = batch.addCall("sample.add", array_of({10, 20}));
    batch.addCall("sample.add", array_of({5, 5}), true);
    int third = batch.addCall("no.such.method", Json::Value(Json::arrayValue));
    jsonrpc::BatchResponse response = client.CallProcedures(batch);
    Json::Value id;
    id = first;
    std::cout << "batch " << first << " " << compact(response.getResult(id)) << "\n";
    id = second;
    std::cout << "batch " << second << " " << compact(response.getResult(id)) << "\n";
    id = third;
    std::cout << "batch " << third << " error " << response.getErrorCode(id) << "\n";
    std::cout << "batch errors " << (response.hasErrors() ? 1 : 0) << "\n";
  } catch (const jsonrpc::JsonRpcException& e) {
    std::cerr << "jsonrpccpp_client: JsonRpcException " << e.GetCode() << ": " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "jsonrpccpp_client: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
