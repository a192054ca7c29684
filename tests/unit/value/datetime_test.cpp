#include <gtest/gtest.h>

#include "callwire/value.hpp"

namespace callwire {
namespace {

DateTime parse_ok(std::string_view text) {
  Result<DateTime> r = DateTime::parse(text);
  EXPECT_TRUE(r) << text << ": " << (r ? "" : r.error().message);
  return r ? *r : DateTime{};
}

TEST(DateTime, SpecForm) {
  DateTime dt = parse_ok("19980717T14:08:55");
  EXPECT_EQ(dt.year, 1998);
  EXPECT_EQ(dt.month, 7);
  EXPECT_EQ(dt.day, 17);
  EXPECT_EQ(dt.hour, 14);
  EXPECT_EQ(dt.minute, 8);
  EXPECT_EQ(dt.second, 55);
  EXPECT_EQ(dt.zone, DateTime::Zone::None);
  EXPECT_EQ(dt.to_string(), "19980717T14:08:55");
}

TEST(DateTime, WhatPeersSend) {
  // DokuWiki: dashes and a +0000 offset.
  DateTime doku = parse_ok("2014-11-10T23:38:51+0000");
  EXPECT_EQ(doku.zone, DateTime::Zone::Offset);
  EXPECT_EQ(doku.offset_minutes, 0);
  EXPECT_EQ(doku.to_string(), "20141110T23:38:51+00:00");
  // WordPress: trailing Z.
  DateTime wp = parse_ok("20141110T23:38:51Z");
  EXPECT_EQ(wp.zone, DateTime::Zone::Utc);
  EXPECT_EQ(wp.to_string(), "20141110T23:38:51Z");
  // No colons.
  EXPECT_EQ(parse_ok("20180222T130252").to_string(), "20180222T13:02:52");
  // xmlrpc-c's fraction of a second.
  DateTime frac = parse_ok("20180222T13:02:52.123456");
  EXPECT_EQ(frac.fraction_digits, 6);
  EXPECT_EQ(frac.nanosecond, 123456000u);
  EXPECT_EQ(frac.to_string(), "20180222T13:02:52.123456");
  // Offsets in every form, kept as given.
  EXPECT_EQ(parse_ok("2001-10-26T21:32:52.12679+02:00").to_string(),
            "20011026T21:32:52.12679+02:00");
  EXPECT_EQ(parse_ok("20011026T21:32:52-0530").offset_minutes, -330);
  EXPECT_EQ(parse_ok("20011026T21:32:52+02").offset_minutes, 120);
}

TEST(DateTime, FractionKeepsItsDigits) {
  EXPECT_EQ(parse_ok("20000101T00:00:00.5").to_string(), "20000101T00:00:00.5");
  EXPECT_EQ(parse_ok("20000101T00:00:00.500").to_string(), "20000101T00:00:00.500");
  // Beyond nanoseconds: read, kept to nine digits.
  EXPECT_EQ(parse_ok("20000101T00:00:00.1234567891").to_string(), "20000101T00:00:00.123456789");
}

TEST(DateTime, LeapYearsAndLeapSeconds) {
  parse_ok("20000229T00:00:00");
  parse_ok("20240229T00:00:00");
  parse_ok("20161231T23:59:60");
  EXPECT_FALSE(DateTime::parse("19000229T00:00:00"));
  EXPECT_FALSE(DateTime::parse("20230229T00:00:00"));
}

TEST(DateTime, RefusesWhatIsNotADateTime) {
  for (const char* bad :
       {"", "1998", "19981317T14:08:55", "19980732T14:08:55", "19980717T24:00:00",
        "19980717T14:60:00", "19980717T14:08:61", "19980717 14:08:55", "19980717T14:08:55.",
        "19980717T14:08:55+2400", "19980717T14:08:55X", "1998-0717T14:08:55", "19980717T14:0855",
        "19980717T14:08:55 ", "+9980717T14:08:55"}) {
    Result<DateTime> r = DateTime::parse(bad);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_EQ(r.error().code, Errc::InvalidRequest);
      EXPECT_NE(r.error().message.find("invalid dateTime"), std::string::npos);
    }
  }
}

TEST(DateTime, Validity) {
  DateTime dt;
  EXPECT_TRUE(dt.valid());
  dt.fraction_digits = 0;
  dt.nanosecond = 5;  // more precision than its digits can write
  EXPECT_FALSE(dt.valid());
  dt.fraction_digits = 9;
  EXPECT_TRUE(dt.valid());
  dt.zone = DateTime::Zone::Offset;
  dt.offset_minutes = 1440;
  EXPECT_FALSE(dt.valid());
}

}  // namespace
}  // namespace callwire
