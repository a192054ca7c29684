// orders_client: calls orders_server with user structs (orders.hpp) and reads them back:
// call<shop::Order> decodes the answer straight into the struct.
//
//   orders_client URL
#include <callwire/client.hpp>
#include <cstdio>

#include "orders.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s URL\n", argv[0]);
    return 2;
  }
  callwire::Client client(argv[1]);

  shop::Order order;
  order.items = {{"tea", 2, 3.5}, {"cups", 4, 1.25}};
  order.note = "fragile";
  callwire::Result<int> id = client.call<int>("shop.place_order", order);
  if (!id) {
    std::fprintf(stderr, "%s\n", id.error().message.c_str());
    return 1;
  }
  callwire::Result<shop::Order> placed = client.call<shop::Order>("shop.get_order", *id);
  if (!placed) {
    std::fprintf(stderr, "%s\n", placed.error().message.c_str());
    return 1;
  }
  std::printf("order %d (%s):\n", placed->id, placed->note ? placed->note->c_str() : "no note");
  for (const shop::Item& item : placed->items)
    std::printf("  %d x %s at %.2f\n", item.qty, item.sku.c_str(), item.price);
  if (callwire::Result<double> total = client.call<double>("shop.total", *placed))
    std::printf("total %.2f\n", *total);

  // An order that does not exist: the server's error comes back as the call's.
  callwire::Result<shop::Order> missing = client.call<shop::Order>("shop.get_order", 99);
  if (!missing) std::printf("%s\n", missing.error().message.c_str());
  return 0;
}
