// orders_server: typed methods taking and returning user structs (shop::Order, orders.hpp),
// declared with CALLWIRE_STRUCT. Try it with orders_client URL, or `callwire list URL` to see
// the structs spelled out by system.methodHelp.
//
//   orders_server [--listen ADDRESS]
#include <callwire/server.hpp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "orders.hpp"

namespace {

callwire::Server* g_server = nullptr;

extern "C" void on_signal(int) {
  if (g_server != nullptr) g_server->stop();  // async-signal-safe
}

// The orders placed so far. Handlers run on the server's threads: one mutex guards them.
class OrderBook {
 public:
  int place(shop::Order order) {
    std::lock_guard lock(mutex_);
    order.id = next_id_++;
    orders_[order.id] = std::move(order);
    return next_id_ - 1;
  }
  callwire::Result<shop::Order> get(int id) const {
    std::lock_guard lock(mutex_);
    auto it = orders_.find(id);
    if (it == orders_.end())
      return callwire::Error(callwire::Errc::NotFound, "no order " + std::to_string(id));
    return it->second;
  }

 private:
  mutable std::mutex mutex_;
  std::map<int, shop::Order> orders_;
  int next_id_ = 1;
};

}  // namespace

int main(int argc, char** argv) {
  std::string listen = "127.0.0.1:0";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
      listen = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--listen ADDRESS]\n", argv[0]);
      return 2;
    }
  }
  callwire::ServerOptions options;
  options.listen = {listen};
  callwire::Server server(options);
  OrderBook book;

  // Parameters and results convert through the structs' one-line declarations; a call whose
  // order lacks a member gets fault -32602 naming it ("parameter 1.items[0].price is missing").
  callwire::Status bound = server.bind(
      "shop.place_order", [&book](const shop::Order& order) { return book.place(order); },
      "Places an order; returns its id.");
  if (bound) {
    bound = server.bind(
        "shop.get_order", {"id"}, [&book](int id) { return book.get(id); },
        "The order with this id.");
  }
  if (bound) {
    bound = server.bind(
        "shop.total",
        [](const shop::Order& order) {
          double total = 0;
          for (const shop::Item& item : order.items) total += item.qty * item.price;
          return total;
        },
        "What the order's items cost.");
  }
  if (!bound) {
    std::fprintf(stderr, "cannot bind: %s\n", bound.error().message.c_str());
    return 1;
  }
  if (auto started = server.start(); !started) {
    std::fprintf(stderr, "cannot start: %s\n", started.error().message.c_str());
    return 1;
  }
  g_server = &server;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::printf("listening on %s\n", server.url().c_str());
  std::fflush(stdout);
  server.wait();
  g_server = nullptr;
  std::printf("stopped\n");
  return 0;
}
