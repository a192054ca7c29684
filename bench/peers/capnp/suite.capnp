# rpclib's suite for Cap'n Proto RPC (bench/peers/common/students.hpp has the native structs).
@0xb02a0457b98dd8ff;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("peers::capnp_suite");

struct Date {
  year @0 :Int32;
  month @1 :Int8;
  day @2 :Int8;
}

struct Address {
  city @0 :Text;
  zipcode @1 :Int32;
  street @2 :Text;
  number @3 :Int16;
}

struct School {
  name @0 :Text;
  address @1 :Address;
  foundation @2 :Date;
  emailAddresses @3 :List(Text);
}

struct Subject {
  id @0 :Int32;
  title @1 :Text;
  code @2 :Text;
}

struct Student {
  name @0 :Text;
  friends @1 :Int32;
  homeAddress @2 :Address;
  birthPlace @3 :Address;
  birth @4 :Date;
  favoriteSubjects @5 :List(Subject);
  emailAddresses @6 :List(Text);
  schools @7 :List(School);
}

interface Suite {
  getAnswer @0 (number :Int32) -> (answer :Int32);
  getBlob @1 (size :UInt64) -> (data :Data);
  getStructs @2 () -> (students :List(Student));
  putBlob @3 (data :Data) -> (digest :Int64);
}
