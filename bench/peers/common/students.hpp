// rpclib's get_structs data (issue 9): 34 Students, each with 34 subjects, 34 e-mail addresses
// and 34 schools of 34 e-mail addresses each; strings of the lengths. Every peer's
// client converts its answer into these native structs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data.hpp"

namespace peers {

inline constexpr size_t kStudents = 34;
inline constexpr size_t kArrayLength = 34;

struct Date {
  int32_t year = 0;
  char month = 0;
  char day = 0;
  bool operator==(const Date&) const = default;
};

struct Address {
  std::string city;  // 12 characters
  int32_t zipcode = 0;
  std::string street;  // 16
  int16_t number = 0;
  bool operator==(const Address&) const = default;
};

struct School {
  std::string name;  // 36
  Address address;
  Date foundation;
  std::vector<std::string> email_addresses;  // 34 of 37
  bool operator==(const School&) const = default;
};

struct Subject {
  int32_t id = 0;
  std::string title;  // 22
  std::string code;   // 16
  bool operator==(const Subject&) const = default;
};

struct Student {
  std::string name;  // 43
  int32_t friends = 0;
  Address home_address;
  Address birth_place;
  Date birth;
  std::vector<Subject> favorite_subjects;    // 34
  std::vector<std::string> email_addresses;  // 34 of 37
  std::vector<School> schools;               // 34
  bool operator==(const Student&) const = default;
};

namespace detail {
inline Date make_date(Rng& rng) {
  return {static_cast<int32_t>(1900 + rng.next() % 120), static_cast<char>(1 + rng.next() % 12),
          static_cast<char>(1 + rng.next() % 28)};
}
inline Address make_address(Rng& rng) {
  Address a;
  a.city = random_text(rng, 12);
  a.zipcode = static_cast<int32_t>(rng.next() % 100000);
  a.street = random_text(rng, 16);
  a.number = static_cast<int16_t>(rng.next() % 1000);
  return a;
}
inline std::vector<std::string> make_emails(Rng& rng) {
  std::vector<std::string> emails;
  for (size_t i = 0; i < kArrayLength; ++i) emails.push_back(random_text(rng, 37));
  return emails;
}
}  // namespace detail

inline std::vector<Student> make_students() {
  Rng rng(34);
  std::vector<Student> students(kStudents);
  for (Student& s : students) {
    s.name = random_text(rng, 43);
    s.friends = static_cast<int32_t>(rng.next() % 1000);
    s.home_address = detail::make_address(rng);
    s.birth_place = detail::make_address(rng);
    s.birth = detail::make_date(rng);
    for (size_t i = 0; i < kArrayLength; ++i) {
      s.favorite_subjects.push_back(
          {static_cast<int32_t>(rng.next() % 100000), random_text(rng, 22), random_text(rng, 16)});
    }
    s.email_addresses = detail::make_emails(rng);
    for (size_t i = 0; i < kArrayLength; ++i) {
      School school;
      school.name = random_text(rng, 36);
      school.address = detail::make_address(rng);
      school.foundation = detail::make_date(rng);
      school.email_addresses = detail::make_emails(rng);
      s.schools.push_back(std::move(school));
    }
  }
  return students;
}

}  // namespace peers
