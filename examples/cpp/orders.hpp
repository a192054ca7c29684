// The types orders_server and orders_client share: plain structs, each made an XML-RPC struct
// by one line (callwire/struct.hpp). Member names are the struct's keys on the wire.
#pragma once

#include <callwire/struct.hpp>
#include <optional>
#include <string>
#include <vector>

namespace shop {

struct Item {
  std::string sku;
  int qty = 0;
  double price = 0;
};

struct Order {
  int id = 0;
  std::vector<Item> items;
  std::optional<std::string> note;  // may be absent (or nil) on the wire
};

// In the types' own namespace, after their definitions.
CALLWIRE_STRUCT(Item, sku, qty, price);
CALLWIRE_STRUCT(Order, id, items, note);

}  // namespace shop
