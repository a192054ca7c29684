// DateTime: validation, the lenient parser for what peers send, the canonical writer, and the
// 15-byte packing inside a Value.
#include <string>

#include "callwire/value.hpp"
#include "value/value_build.hpp"

namespace callwire {

namespace {

constexpr uint32_t kPow10[10] = {1,      10,      100,      1000,      10000,
                                 100000, 1000000, 10000000, 100000000, 1000000000};

bool is_leap(unsigned year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

unsigned days_in_month(unsigned year, unsigned month) {
  static constexpr uint8_t kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

bool digit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `n` digits at text[pos]; advances pos.
bool read_digits(std::string_view text, size_t& pos, size_t n, unsigned& out) {
  if (text.size() - pos < n) return false;
  unsigned v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = text[pos + i];
    if (!digit(c)) return false;
    v = v * 10 + unsigned(c - '0');
  }
  out = v;
  pos += n;
  return true;
}

bool skip(std::string_view text, size_t& pos, char c) {
  if (pos < text.size() && text[pos] == c) {
    ++pos;
    return true;
  }
  return false;
}

Error bad(std::string_view text, const char* why) {
  return Error(Errc::InvalidRequest,
               "invalid dateTime '" + std::string(text.substr(0, 64)) + "': " + why);
}

}  // namespace

bool DateTime::valid() const noexcept {
  if (year > 9999 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month))
    return false;
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (fraction_digits > 9 || nanosecond >= 1000000000u) return false;
  if (nanosecond % kPow10[9 - fraction_digits] != 0) return false;  // more precision than digits
  if (zone == Zone::Offset && (offset_minutes < -1439 || offset_minutes > 1439)) return false;
  if (zone != Zone::Offset && offset_minutes != 0) return false;
  return zone == Zone::None || zone == Zone::Utc || zone == Zone::Offset;
}

Result<DateTime> DateTime::parse(std::string_view text) {
  DateTime dt;
  size_t pos = 0;
  unsigned year, month, day, hour, minute, second;
  if (!read_digits(text, pos, 4, year)) return bad(text, "expected a 4-digit year");
  bool dashes = skip(text, pos, '-');
  if (!read_digits(text, pos, 2, month)) return bad(text, "expected a 2-digit month");
  if (dashes && !skip(text, pos, '-')) return bad(text, "expected '-' after the month");
  if (!read_digits(text, pos, 2, day)) return bad(text, "expected a 2-digit day");
  if (!skip(text, pos, 'T')) return bad(text, "expected 'T' after the date");
  if (!read_digits(text, pos, 2, hour)) return bad(text, "expected a 2-digit hour");
  bool colons = skip(text, pos, ':');
  if (!read_digits(text, pos, 2, minute)) return bad(text, "expected 2-digit minutes");
  if (colons && !skip(text, pos, ':')) return bad(text, "expected ':' after the minutes");
  if (!read_digits(text, pos, 2, second)) return bad(text, "expected 2-digit seconds");
  dt.year = uint16_t(year);
  dt.month = uint8_t(month);
  dt.day = uint8_t(day);
  dt.hour = uint8_t(hour);
  dt.minute = uint8_t(minute);
  dt.second = uint8_t(second);
  if (skip(text, pos, '.') || skip(text, pos, ',')) {
    size_t start = pos;
    while (pos < text.size() && digit(text[pos])) {
      // Digits beyond nanoseconds cannot be kept; they are read and dropped.
      if (pos - start < 9) dt.nanosecond = dt.nanosecond * 10 + unsigned(text[pos] - '0');
      ++pos;
    }
    size_t n = pos - start;
    if (n == 0) return bad(text, "expected digits after the decimal point");
    dt.fraction_digits = uint8_t(n < 9 ? n : 9);
    dt.nanosecond *= kPow10[9 - dt.fraction_digits];
  }
  if (skip(text, pos, 'Z') || skip(text, pos, 'z')) {
    dt.zone = Zone::Utc;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int sign = text[pos++] == '-' ? -1 : 1;
    unsigned oh, om = 0;
    if (!read_digits(text, pos, 2, oh)) return bad(text, "expected a 2-digit offset hour");
    if (pos < text.size()) {
      skip(text, pos, ':');  // +hh:mm and +hhmm alike
      if (!read_digits(text, pos, 2, om)) return bad(text, "expected 2-digit offset minutes");
    }
    if (oh > 23 || om > 59) return bad(text, "offset out of range");
    dt.zone = Zone::Offset;
    dt.offset_minutes = int16_t(sign * int(oh * 60 + om));
  }
  if (pos != text.size()) return bad(text, "unexpected characters after the time");
  if (!dt.valid()) return bad(text, "a field is out of range");
  return dt;
}

size_t DateTime::format(char* out) const noexcept {
  auto put2 = [&](size_t at, unsigned v) {
    out[at] = char('0' + v / 10 % 10);
    out[at + 1] = char('0' + v % 10);
  };
  put2(0, year / 100);
  put2(2, year % 100);
  put2(4, month);
  put2(6, day);
  out[8] = 'T';
  put2(9, hour);
  out[11] = ':';
  put2(12, minute);
  out[14] = ':';
  put2(15, second);
  size_t n = 17;
  if (fraction_digits > 0 && fraction_digits <= 9) {
    out[n++] = '.';
    uint32_t f = nanosecond / kPow10[9 - fraction_digits];
    for (int i = fraction_digits - 1; i >= 0; --i) {
      out[n + size_t(i)] = char('0' + f % 10);
      f /= 10;
    }
    n += fraction_digits;
  }
  if (zone == Zone::Utc) {
    out[n++] = 'Z';
  } else if (zone == Zone::Offset) {
    int m = offset_minutes;
    out[n++] = m < 0 ? '-' : '+';
    if (m < 0) m = -m;
    put2(n, unsigned(m / 60) % 100);
    out[n + 2] = ':';
    put2(n + 3, unsigned(m % 60));
    n += 5;
  }
  return n;
}

std::string DateTime::to_string() const {
  char buf[32];
  return std::string(buf, format(buf));
}

// Packing: raw_[1..2] year, 3 month, 4 day, 5 hour, 6 minute, 7 second, 8 fraction digits,
// 9..12 nanosecond, 13 zone, 14..15 offset minutes.
Value::Value(const DateTime& dt) noexcept : Value() {
  raw_[0] = static_cast<unsigned char>(Type::DateTime);
  std::memcpy(raw_ + 1, &dt.year, 2);
  raw_[3] = dt.month;
  raw_[4] = dt.day;
  raw_[5] = dt.hour;
  raw_[6] = dt.minute;
  raw_[7] = dt.second;
  raw_[8] = dt.fraction_digits;
  std::memcpy(raw_ + 9, &dt.nanosecond, 4);
  raw_[13] = static_cast<unsigned char>(dt.zone);
  std::memcpy(raw_ + 14, &dt.offset_minutes, 2);
}

DateTime Value::as_datetime() const {
  if (!is_datetime())
    throw Exception(Error(Errc::TypeMismatch,
                          std::string("expected dateTime.iso8601, got ") + type_name(type())));
  DateTime dt;
  std::memcpy(&dt.year, raw_ + 1, 2);
  dt.month = raw_[3];
  dt.day = raw_[4];
  dt.hour = raw_[5];
  dt.minute = raw_[6];
  dt.second = raw_[7];
  dt.fraction_digits = raw_[8];
  std::memcpy(&dt.nanosecond, raw_ + 9, 4);
  dt.zone = static_cast<DateTime::Zone>(raw_[13]);
  std::memcpy(&dt.offset_minutes, raw_ + 14, 2);
  return dt;
}

}  // namespace callwire
